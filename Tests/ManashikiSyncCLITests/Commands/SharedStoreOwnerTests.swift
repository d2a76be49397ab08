import Foundation
import ManashikiTestSupport
import Testing

/// Two services on one host sync their own manifests into one store: each names itself
/// (`store.owner` or `--owner`), so neither prunes what the other still wants.
@Suite("store.owner and --owner (built binary, one store, two manifests)")
struct SharedStoreOwnerTests {
    /// Writes `name` (a manifest for `models` into the fixture's store), with `owner` if given.
    func manifest(_ f: Fixture, _ name: String, models: [String], owner: String?) throws -> String {
        var text = TestManifest.text(baseURL: f.registry.apiBaseURL, store: "models", models: models)
        if let owner { text = text.replacingOccurrences(of: #""store": {"#, with: #""store": {"owner": "\#(owner)", "#) }
        try Data(text.utf8).write(to: f.directory.appendingPathComponent(name))
        return name
    }

    @Test("each service keeps its models: a tracked prune skips what another owner claims, from the manifest or the flag")
    func twoOwners() async throws {
        let f = try Fixture()
        let a = try manifest(f, "a.json", models: ["alpha"], owner: "svc-a")
        let b = try manifest(f, "b.json", models: ["beta"], owner: nil)
        #expect(try await f.run(["sync", "-m", a]).status == 0)
        let second = try await f.run(["sync", "-m", b, "--owner", "svc-b"])
        #expect(second.status == 0, "\(second.all)")
        #expect(f.isInstalledIntact("alpha") && f.isInstalledIntact("beta"), "\(second.all)")
        let third = try await f.run(["sync", "-m", a])
        #expect(third.status == 0 && third.stdoutLines.last?.hasPrefix("sync: in-sync") == true, "\(third.all)")
        #expect(f.isInstalledIntact("alpha") && f.isInstalledIntact("beta"))
        let plan = try await f.run(["plan", "-m", b, "--owner", "svc-b"])
        #expect(plan.status == 0, "\(plan.all)")
        // status names who claims what, in text (a column once an owner is named) and JSON.
        let status = try await f.run(["status", "--store", "models"])
        #expect(status.stdoutLines.contains { $0.hasPrefix("MODEL") && $0.hasSuffix("OWNERS") }, "\(status.stdout)")
        #expect(status.stdoutLines.contains { $0.hasPrefix("alpha") && $0.hasSuffix("svc-a") })
        #expect(status.stdoutLines.contains { $0.hasPrefix("beta") && $0.hasSuffix("svc-b") })
        let json = try await f.run(["status", "--store", "models", "--json"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let owners = ((summary["models"] as? [[String: Any]]) ?? []).reduce(into: [String: [String]]()) { $0[$1["modelId"] as? String ?? "?"] = $1["owners"] as? [String] }
        #expect(owners == ["alpha": ["svc-a"], "beta": ["svc-b"]], "\(json.stdout)")
    }

    @Test("without owners the same two manifests are one owner: the second sync prunes the first one's model")
    func sameOwnerPrunes() async throws {
        let f = try Fixture()
        #expect(try await f.run(["sync", "-m", try manifest(f, "a.json", models: ["alpha"], owner: nil)]).status == 0)
        let second = try await f.run(["sync", "-m", try manifest(f, "b.json", models: ["beta"], owner: nil)])
        #expect(second.status == 0, "\(second.all)")
        #expect(f.installed("alpha") == nil && f.isInstalledIntact("beta"))
    }

    @Test("a bad owner name is a usage error naming the option or the field", arguments: ["flag", "manifest"])
    func badOwner(_ where_: String) async throws {
        let f = try Fixture()
        let result = where_ == "flag"
            ? try await f.run(["sync", "--owner", "svc a"])
            : try await f.run(["sync", "-m", try manifest(f, "a.json", models: ["alpha"], owner: "svc/a")])
        #expect(result.status == 2)
        #expect(result.stderr.contains(where_ == "flag" ? "--owner" : "store.owner"), "\(result.stderr)")
        #expect(f.installed("alpha") == nil)
    }
}

import Foundation
import Testing
import ManashikiTestSupport
import ManashikiRegistry
#if canImport(Glibc)
import Glibc
#endif

@Suite("verify (built binary)")
struct VerifyCommandTests {
    /// Flips one byte in the middle of `id`'s file, keeping its size and modification time.
    static func corrupt(_ fixture: Fixture, _ id: String) throws {
        let url = fixture.store.appendingPathComponent("\(id).bin")
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        var bytes = try Data(contentsOf: url)
        bytes[bytes.count / 2] ^= 0xFF
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: bytes)
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: attributes[.modificationDate]!], ofItemAtPath: url.path)
    }

    @Test("verify of an intact store exits 0 offline, without the key")
    func healthy() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync"]).status == 0)
        let before = fixture.registry.requestLog().count
        let result = try await fixture.run(["verify"], environment: [:])
        #expect(result.status == 0)
        #expect(result.stdoutLines.last?.hasPrefix("verify: healthy — 2 ok") == true)
        #expect(fixture.registry.requestLog().count == before)
    }

    @Test("verify finds a corrupt and a missing file: exit 4, one stderr line each")
    func damaged() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync"]).status == 0)
        try Self.corrupt(fixture, "alpha")
        try FileManager.default.removeItem(at: fixture.store.appendingPathComponent("beta.bin"))
        let result = try await fixture.run(["verify"], environment: [:])
        #expect(result.status == 4)
        #expect(result.stderrLines.contains { $0.hasPrefix("manashiki-sync: error: alpha: corrupt") })
        #expect(result.stderrLines.contains { $0.hasPrefix("manashiki-sync: error: beta: missing") })
        #expect(!hasControlCharacters(result.all))
    }

    @Test("verify reports an unknown file without failing")
    func unknown() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync"]).status == 0)
        try Data("hand-copied".utf8).write(to: fixture.store.appendingPathComponent("stray.bin"))
        let result = try await fixture.run(["verify", "--json"], environment: [:])
        #expect(result.status == 0)
        let files = try #require(result.summary()["files"] as? [[String: Any]])
        #expect(files.contains { $0["modelId"] as? String == "stray" && $0["verdict"] as? String == "unknown" })
    }

    @Test("verify --repair re-downloads the corrupt and missing files and exits 0")
    func repair() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync"]).status == 0)
        try Self.corrupt(fixture, "alpha")
        try FileManager.default.removeItem(at: fixture.store.appendingPathComponent("beta.bin"))
        let result = try await fixture.run(["verify", "--repair", "--json"])
        #expect(result.status == 0)
        let summary = result.summary()
        #expect(summary["command"] as? String == "verify")
        #expect(summary["outcome"] as? String == "repaired")
        #expect(summary["repaired"] as? Int == 2)
        #expect(result.jsonLines().filter { $0["type"] as? String == "summary" }.count == 1)
        // What was found comes first, then the repair's events (they came the other way round).
        let types = result.jsonLines().compactMap { $0["type"] as? String }
        let firstFinding = types.firstIndex(of: "verify.file"), firstRepairEvent = types.firstIndex { $0.hasPrefix("model.") }
        #expect(firstFinding != nil && firstRepairEvent != nil && firstFinding! < firstRepairEvent!, "\(types)")
        #expect(fixture.isInstalledIntact("alpha"))
        #expect(fixture.isInstalledIntact("beta"))
    }

    @Test("verify --repair of a deleted store whose downloads fail (an unusable proxy setting: terminal, nothing sent) exits 4: the models are still missing, not 'not installed'")
    func repairThatFailsOnDeletedStore() async throws {
        let fixture = try Fixture()
        let result = try await fixture.run(["verify", "--repair", "--json"], environment: fixture.environment.merging(["http_proxy": "ftp://proxy.invalid"]) { $1 })
        #expect(result.status == 4, "\(result.all)")
        let summary = result.summary()
        #expect(summary["outcome"] as? String == "damaged", "\(result.stdout)")
        let verdicts = (summary["files"] as? [[String: Any]] ?? []).compactMap { $0["verdict"] as? String }
        #expect(verdicts == ["missing", "missing"], "\(result.stdout)")
        #expect(result.stderr.contains("http_proxy is not a usable proxy URL"), "\(result.stderr)")
        #expect(fixture.registry.requestLog().isEmpty)
    }

    @Test("verify --store works without a manifest")
    func storeOnly() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync"]).status == 0)
        try FileManager.default.removeItem(at: fixture.manifestURL)
        let result = try await fixture.run(["verify", "--store", "models"], environment: [:])
        #expect(result.status == 0)
    }

    @Test("verify lists the partial a SIGINT kept, in text and in the --json partials array, without failing")
    func keptPartial() async throws {
        let fixture = try Fixture()
        #expect(try await SignalTrapTests.interruptSlowSync(fixture, with: SIGINT).status == 130)
        let json = try await fixture.run(["verify", "--json"], environment: [:])
        #expect(json.status == 0)
        let partials = try #require(json.summary()["partials"] as? [[String: Any]])
        #expect(partials.compactMap { $0["modelId"] as? String } == ["beta"])
        #expect((partials.first?["bytes"] as? Int ?? 0) > 0)
        #expect(partials.first?["inUse"] as? Bool == false)
        let text = try await fixture.run(["verify"], environment: [:])
        #expect(text.stdoutLines.contains { $0.hasPrefix("Partial: beta") && $0.contains("kept") })
        #expect(PartialFolder.kept(in: fixture.store).count == 1)
    }
}

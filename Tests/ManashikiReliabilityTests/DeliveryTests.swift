#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
import Manashiki

/// What the manifest asks for is installed, or the run says it failed (issue 13): a required
/// model the run cannot deliver is `blocked`, printed as an error without `-v`, and fails the
/// run; `"optional": true` entries are skipped with a visible warning. The built binary against
/// the development registry.
@Suite("Reliability: undeliverable models")
struct DeliveryTests {
    static let errorPrefix = "manashiki-sync: error: "

    /// Entries the registry (alpha, beta, gamma at 1.0.0) cannot deliver, with a word the error names.
    static let undeliverable: [(label: String, entry: String, says: String)] = [
        ("an unknown id", #"{"id": "no-such-model"}"#, "does not list this model"),
        ("an unsatisfiable range", #"{"id": "alpha", "version": "^2.0"}"#, "does not satisfy ^2.0"),
        ("an unsatisfiable exact version", #"{"id": "alpha", "version": "3.1.0"}"#, "does not satisfy 3.1.0"),
        ("a sha256 no served artifact matches", #"{"id": "alpha", "sha256": "\#(String(repeating: "ab", count: 32))"}"#, "sha256"),
    ]

    @Test("a manifest made only of undeliverable models: sync exits 1 and installs nothing, plan exits 1, both say why without -v", arguments: 0..<4)
    func onlyUndeliverable(index: Int) async throws {
        let (label, entry, says) = Self.undeliverable[index]
        let f = try SyncFixture(models: [], extraEntries: [entry])
        let plan = try await f.run(["plan"])
        #expect(plan.status == 1, "\(label): plan: \(plan.all)")
        let modelId = entry.contains("no-such-model") ? "no-such-model" : "alpha"
        #expect(plan.stderrLines.contains { $0.hasPrefix(Self.errorPrefix + modelId + ": not installed: ") && $0.contains(says) }, "\(label): \(plan.stderr)")
        let sync = try await f.run(["sync"])
        #expect(sync.status == 1, "\(label): sync: \(sync.all)")
        #expect(sync.stderrLines.contains { $0.hasPrefix(Self.errorPrefix + modelId + ": not installed: ") && $0.contains(says) }, "\(label): \(sync.stderr)")
        #expect(sync.stdoutLines.last?.hasPrefix("sync: failed — 0 installed") == true, "\(sync.stdout)")
        #expect(sync.stdoutLines.last?.contains("1 blocked") == true, "\(sync.stdout)")
        #expect(Invariants.strays(f.store, allowed: []).isEmpty)
        let json = try await f.run(["sync", "--json"])
        #expect(json.status == 1)
        let counts = json.summary?["counts"] as? [String: Int]
        #expect(counts?["blocked"] == 1 && counts?["skipped"] == 0, "\(json.stdout)")
        #expect(json.summary?["outcome"] as? String == "failed")
        #expect(json.summaryModel(modelId)?["status"] as? String == "blocked")
    }

    @Test("an undeliverable model next to good ones: the others are installed, sync exits 3, nothing is pruned")
    func partial() async throws {
        let f = try SyncFixture(models: ["alpha", "gamma"], extraEntries: [#"{"id": "no-such-model"}"#])
        let result = try await f.run(["sync", "--quiet"])
        #expect(result.status == 3, "\(result.all)")
        #expect(result.stderrLines.contains { $0.hasPrefix(Self.errorPrefix + "no-such-model: not installed: ") }, "\(result.stderr)")
        #expect(f.isInstalledIntact("alpha") && f.isInstalledIntact("gamma"))
    }

    @Test("a sha256 pin no artifact matches, with another version installed: plan 1, sync 1, the installed file kept")
    func shaPinKeepsInstalled() async throws {
        let f = try SyncFixture(models: ["alpha"])
        let before = try await f.syncOnce()
        try f.writeManifest(models: [], extraEntries: [#"{"id": "alpha", "sha256": "\#(String(repeating: "cd", count: 32))"}"#])
        let plan = try await f.run(["plan"])
        #expect(plan.status == 1, "\(plan.all)")
        let sync = try await f.run(["sync"])
        #expect(sync.status == 1, "\(sync.all)")
        #expect(sync.stderrLines.contains { $0.hasPrefix(Self.errorPrefix + "alpha: not installed: ") && $0.contains("does not satisfy it either") }, "\(sync.stderr)")
        #expect(StoreSnapshot.capture(f.store).files == before.files)
    }

    @Test("an optional entry the registry cannot deliver is skipped with a warning; the run succeeds and counts it")
    func optionalEntry() async throws {
        let f = try SyncFixture(models: ["alpha"], extraEntries: [#"{"id": "no-such-model", "optional": true}"#])
        let plan = try await f.run(["plan"])
        #expect(plan.status == 10, "\(plan.all)")
        let sync = try await f.run(["sync"])
        #expect(sync.status == 0, "\(sync.all)")
        #expect(!sync.stderrLines.contains { $0.hasPrefix(Self.errorPrefix) }, "\(sync.stderr)")
        #expect(sync.stderr.contains("no-such-model: optional model not installed"), "\(sync.stderr)")
        #expect(sync.stdoutLines.last?.contains("1 skipped") == true, "\(sync.stdout)")
        #expect(f.isInstalledIntact("alpha"))
        let json = try await f.run(["sync", "--json"])
        #expect(json.status == 0)
        #expect((json.summary?["counts"] as? [String: Int])?["skipped"] == 1, "\(json.stdout)")
        #expect(json.summaryModel("no-such-model")?["status"] as? String == "skipped")
    }

    @Test("plan on a fresh store creates nothing, not even the store directory")
    func planCreatesNothing() async throws {
        let f = try SyncFixture(models: ["alpha"])
        let plan = try await f.run(["plan"])
        #expect(plan.status == 10, "\(plan.all)")
        #expect(!FileManager.default.fileExists(atPath: f.store.path), "\(String(describing: try? FileManager.default.subpathsOfDirectory(atPath: f.store.path)))")
        let dry = try await f.run(["sync", "--dry-run"])
        #expect(dry.status == 0, "\(dry.all)")
        #expect(!FileManager.default.fileExists(atPath: f.store.path))
    }

    @Test("store.directory naming a regular file says so, not \"Input/output error\"")
    func storeIsAFile() async throws {
        let f = try SyncFixture(models: ["alpha"])
        try Data("not a directory".utf8).write(to: f.store)
        let sync = try await f.run(["sync"])
        #expect(sync.status == 1, "\(sync.all)")
        #expect(sync.stderr.contains("is a file, not a directory"), "\(sync.stderr)")
        #expect(!sync.stderr.contains("Input/output error"), "\(sync.stderr)")
        // Said once: no second warning that the last-run record has nowhere to go.
        #expect(sync.stderrLines.count == 1, "\(sync.stderr)")
        #expect(try Data(contentsOf: f.store) == Data("not a directory".utf8))
    }
}

/// `verify` as issue 13 found it: silent `--json`, a deleted store, `--repair`.
@Suite("Reliability: verify")
struct VerifyReliabilityTests {
    @Test("verify --json reports a corrupt file on stderr too, and exits 4")
    func jsonCorruptOnStderr() async throws {
        let f = try SyncFixture(models: ["alpha", "beta"])
        try await f.syncOnce()
        var bytes = f.expected("beta")
        bytes[100] ^= 0xFF
        try bytes.write(to: f.modelFile("beta"))
        let result = try await f.run(["verify", "--json"])
        #expect(result.status == 4, "\(result.all)")
        #expect(result.stderrLines.contains { $0.hasPrefix("manashiki-sync: error: beta: corrupt: ") }, "\(result.stderr)")
        #expect(result.summary?["outcome"] as? String == "damaged")
    }

    @Test("a deleted store is every model missing: verify exits 4 and creates nothing; verify --repair restores every model")
    func deletedStore() async throws {
        let f = try SyncFixture(models: ["alpha", "beta", "gamma"])
        try await f.syncOnce()
        try FileManager.default.removeItem(at: f.store)
        let verify = try await f.run(["verify", "--json"])
        #expect(verify.status == 4, "\(verify.all)")
        #expect((verify.summary?["counts"] as? [String: Int])?["missing"] == 3, "\(verify.stdout)")
        #expect(verify.stderrLines.filter { $0.contains(": missing: ") }.count == 3, "\(verify.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.store.path))
        let repair = try await f.run(["verify", "--repair"])
        #expect(repair.status == 0, "\(repair.all)")
        #expect(repair.stdoutLines.last?.hasPrefix("verify: repaired — 3 ok") == true, "\(repair.stdout)")
        for id in ["alpha", "beta", "gamma"] { #expect(f.isInstalledIntact(id), "\(id)") }
        #expect(try await f.run(["verify"]).status == 0)
    }
}

/// The manifest's JSON, read strictly by the real binary (issue 13).
@Suite("Reliability: manifest syntax")
struct ManifestSyntaxTests {
    @Test("a trailing comma or a duplicate key: exit 2, the path on stderr, no request, no store")
    func strict() async throws {
        let f = try SyncFixture(models: ["alpha"])
        for (text, path) in [(#"{"id": "alpha",}"#, "models[0]"), (#"{"id": "alpha", "id": "beta"}"#, "models[0]")] {
            let manifest = String(decoding: try Data(contentsOf: f.manifestURL), as: UTF8.self)
                .replacingOccurrences(of: #"{"id": "alpha"}"#, with: text)
            try Data(manifest.utf8).write(to: f.manifestURL)
            let result = try await f.run(["plan"])
            #expect(result.status == 2, "\(result.all)")
            #expect(result.stderrLines.contains { $0.contains("\(path): not valid JSON: ") }, "\(result.stderr)")
            #expect(f.registry.requestLog().isEmpty)
            #expect(!FileManager.default.fileExists(atPath: f.store.path))
            try f.writeManifest(models: ["alpha"])
        }
    }

    @Test("the sync-agent guide's sample of manifest errors (docs/sync-agent.md) is what the binary prints")
    func guideSample() async throws {
        let guide = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/sync-agent.md"), encoding: .utf8)
        let intro = try #require(guide.range(of: "Mistakes are reported all at once"))
        let start = try #require(guide.range(of: "```text\n", range: intro.upperBound..<guide.endIndex))
        let end = try #require(guide.range(of: "```", range: start.upperBound..<guide.endIndex))
        let sample = guide[start.upperBound..<end.lowerBound].split(separator: "\n").map(String.init)
        let f = try SyncFixture(models: ["alpha", "beta", "gamma"],
                                extraEntries: [#"{"id": "delta", "version": "1.x"}"#])
        let manifest = String(decoding: try Data(contentsOf: f.manifestURL), as: UTF8.self)
            .replacingOccurrences(of: #"{"id": "alpha"}"#, with: #"{"id": "alpha", "verison": "^1.0"}"#)
        try Data(manifest.utf8).write(to: f.manifestURL)
        let result = try await f.run(["plan"])
        #expect(result.status == 2)
        #expect(sample.count == 2)
        #expect(result.stderrLines == sample, "docs/sync-agent.md:\n\(sample.joined(separator: "\n"))\nbinary:\n\(result.stderr)")
    }
}
#endif

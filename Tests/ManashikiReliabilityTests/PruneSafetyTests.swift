#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
import ManashikiRegistry

/// Prunes happen last, only when everything succeeded, only on `<valid-id>.bin`, never beyond
/// the limit. Covered elsewhere: the planner's prune rules (ManashikiSyncTests PlannerTests) and
/// --no-prune / --max-delete 0 (ManashikiSyncCLITests SyncCommandTests.prunes).
@Suite("Reliability: prune safety")
struct PruneSafetyTests {
    @Test("an empty manifest prunes nothing, in tracked and all modes", arguments: ["tracked", "all"])
    func emptyManifest(mode: String) async throws {
        let f = try SyncFixture(prune: #"{"mode": "\#(mode)", "maxDeletes": 10}"#)
        let before = try await f.syncOnce()
        try f.writeManifest(models: [], prune: #"{"mode": "\#(mode)", "maxDeletes": 10}"#)
        let result = try await f.run()
        #expect(result.status != 2, "\(result.all)")
        Invariants.expectStandardOutcome(store: f.store, before: before, failed: [])
        #expect(StoreSnapshot.capture(f.store).files.count == 3)
    }

    static let invalidManifests = [
        "", "{", #"{"schemaVersion": 2, "models": []}"#, #"{"schemaVersion": 1, "models": "alpha"}"#,
        #"{"schemaVersion": 1, "store": {"prune": {"mode": "everything"}}, "models": []}"#,
        #"{"schemaVersion": 1, "registry": {"apiKey": "mk_pub_demo_RelSecretKeyZ0123456789abcd"}, "models": []}"#,
    ]

    @Test("an invalid manifest prunes nothing and contacts no one (exit 2)", arguments: 0..<6)
    func invalidManifest(index: Int) async throws {
        let f = try SyncFixture(prune: #"{"mode": "all", "maxDeletes": 10}"#)
        let before = try await f.syncOnce()
        f.registry.clearRequestLog()
        try Data(Self.invalidManifests[index].utf8).write(to: f.manifestURL)
        let result = try await f.run(["sync", "--store", f.store.path])
        #expect(result.status == 2, "\(result.all)")
        #expect(f.registry.requestLog().isEmpty)
        Invariants.expectStandardOutcome(store: f.store, before: before, failed: [])
        #expect(!result.all.contains(Keys.publishable))
    }

    @Test("any failed download means no prune")
    func failureBlocksPrune() async throws {
        let f = try SyncFixture()
        let before = try await f.syncOnce()
        try f.writeManifest(models: ["alpha", "beta"])         // gamma would be pruned…
        try f.publishNewVersion("beta", version: "1.1.0", seed: 300)
        f.registry.setFault(.corruptByte(), modelId: "beta", endpoint: .storage)   // …but beta fails
        let result = try await f.run(["sync", "--json"])
        #expect(result.status == 3, "\(result.all)")
        Invariants.expectStandardOutcome(store: f.store, before: before, failed: ["beta"])
        #expect(f.installed("gamma") != nil)
        #expect(result.summaryModel("gamma")?["status"] as? String != "pruned")
    }

    @Test("files that are not <valid-id>.bin are never touched, even in mode all")
    func foreignFilesUntouched() async throws {
        let f = try SyncFixture(prune: #"{"mode": "all", "maxDeletes": 50}"#)
        try await f.syncOnce()
        let foreign = ["README", "notes.txt", "Alpha.bin", "x..y.bin", ".hidden.bin", "a b.bin", "beta.bin.bak", "beta.BIN", "-x.bin", "delta.bin.partial"]
        for name in foreign { try Data("keep \(name)".utf8).write(to: f.store.appendingPathComponent(name)) }
        try FileManager.default.createDirectory(at: f.store.appendingPathComponent("sub.bin"), withIntermediateDirectories: true)
        try Data("orphan".utf8).write(to: f.store.appendingPathComponent("delta.bin"))   // a valid id: prunable in mode all
        try f.writeManifest(models: ["alpha"], prune: #"{"mode": "all", "maxDeletes": 50}"#)
        let result = try await f.run()
        #expect(result.status == 0, "\(result.all)")
        for name in foreign {
            #expect(FileManager.default.contents(atPath: f.store.appendingPathComponent(name).path) == Data("keep \(name)".utf8), "\(name) was touched")
        }
        #expect(FileManager.default.fileExists(atPath: f.store.appendingPathComponent("sub.bin").path))
        #expect(f.installed("beta") == nil && f.installed("gamma") == nil && f.installed("delta") == nil)
        #expect(f.isInstalledIntact("alpha"))
    }

    @Test("--max-delete holds: more prunes than allowed prunes nothing", arguments: [0, 1])
    func maxDelete(limit: Int) async throws {
        let f = try SyncFixture()
        let before = try await f.syncOnce()
        try f.writeManifest(models: ["alpha"])   // two prunes wanted
        let result = try await f.run(["sync", "--max-delete", "\(limit)"])
        #expect(result.status == 3, "\(result.all)")
        Invariants.expectStandardOutcome(store: f.store, before: before, failed: [])
        let ok = try await f.run(["sync", "--max-delete", "2"])
        #expect(ok.status == 0)
        #expect(f.installed("beta") == nil && f.installed("gamma") == nil && f.isInstalledIntact("alpha"))
    }
}
#endif

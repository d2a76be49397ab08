import Foundation
import Testing
import ManashikiCore
import Manashiki
@testable import ManashikiSync

/// `Reconciler.repair()`: the library re-hashes, downloads what is damaged, and verifies again
/// (the command only renders the report).
@Suite("Repair")
struct RepairTests {
    @Test("a corrupt file and a missing one are downloaded again; healthy, extra and new models are left alone")
    func repairsOnlyDamage() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        for id in ["a", "b", "c"] { registry.publish(id, "1.0.0") }
        let reconciler = Fixture.reconciler(store, registry, [ModelSpec(id: "a"), ModelSpec(id: "b"), ModelSpec(id: "c")])
        #expect(await reconciler.run().outcome == .changed)
        store.write("a", "damaged bytes")
        try FileManager.default.removeItem(at: store.file("b"))
        registry.publish("c", "2.0.0")               // an upgrade is not a repair
        let before = registry.calls("download").count

        let report = await reconciler.repair()
        #expect(report.before.damagedModelIds == ["a", "b"])
        #expect(report.repaired == ["a", "b"])
        #expect(report.after.isHealthy && report.isHealthy)
        #expect(Array(registry.calls("download").dropFirst(before)).sorted() == ["download a", "download b"])
        #expect(report.after.files["c"] == .ok(version: "1.0.0", sha256: SHA256Hasher.hash(Data("c 1.0.0 weights".utf8)).hex))
        #expect(store.contents("a") == "a 1.0.0 weights")
    }

    @Test("a deleted store is a store whose every model is missing: repair restores them all")
    func deletedStore() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        for id in ["a", "b"] { registry.publish(id, "1.0.0") }
        let reconciler = Fixture.reconciler(store, registry, [ModelSpec(id: "a"), ModelSpec(id: "b"), ModelSpec(id: "w", platforms: [.watchos])])
        #expect(await reconciler.run().outcome == .changed)
        try FileManager.default.removeItem(at: store.url)

        let missing = await Verifier.verify(store.layout, expecting: ["a", "b"])
        #expect(missing.files == ["a": .missing, "b": .missing])
        #expect(!FileManager.default.fileExists(atPath: store.url.path))
        let report = await reconciler.repair()
        #expect(report.before.damagedModelIds == ["a", "b"])
        #expect(report.repaired == ["a", "b"])
        #expect(store.contents("b") == "b 1.0.0 weights")
    }

    @Test("nothing damaged: no request, no sync")
    func healthy() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        let reconciler = Fixture.reconciler(store, registry, [ModelSpec(id: "a")])
        _ = await reconciler.run()
        let calls = registry.calls.count
        let report = await reconciler.repair()
        #expect(report.sync == nil && report.repaired.isEmpty && report.isHealthy)
        #expect(registry.calls.count == calls)
    }
}

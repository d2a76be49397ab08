import Testing
import Foundation
import Manashiki
@testable import ManashikiSync
import ManashikiCore

@Suite("Verifier")
struct VerifierTests {
    @Test("verify reports intact, corrupt, missing and unknown files, offline")
    func verify() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        for id in ["ok", "bad", "gone"] { registry.publish(id, "1.0.0") }
        _ = await Fixture.reconciler(store, registry, ["ok", "bad", "gone"].map { ModelSpec(id: $0) }).run()
        let calls = registry.calls.count
        store.write("bad", "tampered")
        try FileManager.default.removeItem(at: store.file("gone"))
        store.write("stray", "x")

        let report = await Verifier.verify(store.layout)
        #expect(report.files["ok"] == .ok(version: "1.0.0", sha256: registry.entry("ok")!.sha256))
        #expect(report.files["bad"] == .corrupt(expected: registry.entry("bad")!.sha256, actual: SHA256Hasher.hash(Data("tampered".utf8)).hex))
        #expect(report.files["gone"] == .missing)
        #expect(report.files["stray"] == .unknown(sha256: SHA256Hasher.hash(Data("x".utf8)).hex))
        #expect(!report.isHealthy)
        #expect(registry.calls.count == calls)
    }

    @Test("a store without a state file says so")
    func noState() async {
        let store = TestStore()
        store.write("a", "x")
        let report = await Verifier.verify(store.layout)
        #expect(report.stateNote != nil)
        #expect(report.isHealthy)
    }
}

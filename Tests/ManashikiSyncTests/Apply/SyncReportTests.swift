import Foundation
import Manashiki
import ManashikiTestSupport
import Testing
@testable import ManashikiSync

/// What an app reads from a report: `summary` and `failures` (issue 26, 5).
@Suite("Sync report")
struct SyncReportTests {
    @Test("a blocked model is in the summary and in failures, with its id and the reason")
    func blockedVisible() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("private-model", "1.0.0", visibility: .private)
        registry.publish("pub", "1.0.0")
        let specs = [ModelSpec(id: "private-model", session: .environment("MY_SESSION")), ModelSpec(id: "pub")]
        let report = await Fixture.reconciler(store, registry, specs, options: Fixture.options(env: [:])).run()
        #expect(report.outcome == .partialFailure)
        let failure = try #require(report.failures.first, "no failure for the blocked model: \(report.summary)")
        #expect(report.failures.count == 1)
        #expect(failure.kind == .terminal)
        #expect(failure.message.hasPrefix("private-model: blocked — "), "\(failure.message)")
        #expect(failure.message.contains("MY_SESSION"), "\(failure.message)")
        #expect(report.summary.hasPrefix("partialFailure: 1 installed, 0 replaced, 0 pruned, 0 skipped, 0 failed, 1 blocked — private-model: blocked — "),
                "\(report.summary)")
        #expect(report.summary.contains("MY_SESSION"))
        #expect(!report.isRetryable)
    }

    @Test("a run without failures has none, and its summary is the counts alone")
    func cleanRun() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("pub", "1.0.0")
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "pub")]).run()
        #expect(report.failures.isEmpty)
        #expect(report.summary == "changed: 1 installed, 0 replaced, 0 pruned, 0 skipped, 0 failed, 0 blocked")
    }
}

@Suite("Reconciler: the registry client's store")
struct RegistryStoreRuleTests {
    @Test("a client that installs elsewhere than the manifest's store fails the run, saying what to pass")
    func mismatchSaysWhatToDo() async throws {
        let store = TestStore()
        let elsewhere = TestStore()
        let registry = FakeRegistry(storageDirectory: elsewhere.url)
        registry.publish("pub", "1.0.0")
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "pub")]).run()
        #expect(report.outcome == .failed)
        let message = try #require(report.runFailure?.message)
        #expect(message.contains(elsewhere.url.path) && message.contains(store.url.path), "\(message)")
        #expect(message.contains("storageDirectory: manifest.storeDirectory"), "\(message)")
        #expect(registry.calls("download").isEmpty)
    }
}

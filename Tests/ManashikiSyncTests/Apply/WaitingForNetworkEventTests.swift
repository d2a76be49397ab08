import Foundation
import Testing
import Manashiki
@testable import ManashikiSync

/// A registry whose downloads first wait for a network, as URLSession reports it on Apple
/// platforms (`DownloadOptions.onWaitingForNetwork`).
private struct WaitingRegistry: RegistryClient {
    let base: FakeRegistry
    var storageDirectory: URL { base.storageDirectory }
    var canIssueSessions: Bool { base.canIssueSessions }
    func listModels() async throws -> [ModelEntry] { try await base.listModels() }
    func getModel(_ modelId: String) async throws -> ModelRecord { try await base.getModel(modelId) }
    func createSession(principalId: String, ttlSec: Int) async throws -> ModelSession { try await base.createSession(principalId: principalId, ttlSec: ttlSec) }
    func download(_ modelId: String, session: String?, expecting: ExpectedArtifact, options: DownloadOptions,
                  progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel {
        options.onWaitingForNetwork?()
        return try await base.download(modelId, session: session, expecting: expecting, options: options, progress: progress)
    }
}

@Suite("SyncEvent.waitingForNetwork")
struct WaitingForNetworkEventTests {
    @Test("a download that waits for a network shows in the event stream, between the start and the progress")
    func event() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        let reconciler = Reconciler(manifest: Fixture.manifest(store, [ModelSpec(id: "a")]), registry: WaitingRegistry(base: registry),
                                    options: Fixture.options())
        var seen: [SyncEvent] = []
        for await event in reconciler.events() { seen.append(event) }
        let waiting = try #require(seen.firstIndex(of: .waitingForNetwork(modelId: "a")))
        let started = try #require(seen.firstIndex { if case .modelStarted("a", _) = $0 { true } else { false } })
        let progress = try #require(seen.firstIndex { if case .progress("a", _, _) = $0 { true } else { false } })
        #expect(started < waiting && waiting < progress)
        guard case .finished(let report)? = seen.last else { Issue.record("no report"); return }
        #expect(report.outcome == .changed)
    }
}

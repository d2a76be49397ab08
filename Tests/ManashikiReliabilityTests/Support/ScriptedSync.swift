#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Testing

/// The built binary against a `ScriptedRegistry` serving alpha, beta and gamma.
final class ScriptedSync: SyncWorkspace, @unchecked Sendable {
    let registry: ScriptedRegistry
    let scratch = ScratchDirectory("manashiki-rel")
    var directory: URL { scratch.url }
    var store: URL { scratch.url.appendingPathComponent("models") }
    var environment: [String: String] { ["MANASHIKI_API_KEY": Keys.publishable] }

    static func bytes(_ seed: Int, _ count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) }) }

    init(prune: String = TestManifest.defaultPrune, extraEntries: [String] = []) throws {
        registry = try ScriptedRegistry(models: [
            .init(id: "alpha", version: "1.0.0", bytes: Self.bytes(1, 20_000)),
            .init(id: "beta", version: "1.0.0", bytes: Self.bytes(2, 30_000)),
            .init(id: "gamma", version: "1.0.0", bytes: Self.bytes(3, 25_000)),
        ])
        try writeManifest(models: ["alpha", "beta", "gamma"], prune: prune, extraEntries: extraEntries)
    }

    func writeManifest(models: [String], prune: String = TestManifest.defaultPrune, extraEntries: [String] = [],
                       policies: String? = nil, topLevel: String = "") throws {
        try TestManifest.write(to: manifestURL, baseURL: registry.baseURL, store: store.path, models: models,
                               extraEntries: extraEntries, prune: prune, policies: policies, topLevel: topLevel)
    }

    /// Publishes 1.1.0 of every model (new bytes).
    func publishNewVersions() {
        for (i, id) in ["alpha", "beta", "gamma"].enumerated() {
            registry.publish(.init(id: id, version: "1.1.0", bytes: Self.bytes(50 + i, 20_000 + 1000 * i)))
        }
    }

    func expected(_ id: String) -> Data { registry.model(id)?.bytes ?? Data() }

    /// A first sync of everything (expected to succeed), then new versions published and
    /// `override` set; returns the store as the first sync left it.
    private func installThenOverride(_ override: @escaping ScriptedRegistry.Override, sourceLocation: SourceLocation) async throws -> StoreSnapshot {
        let first = try await run()
        #expect(first.status == 0, "first sync: \(first.all)", sourceLocation: sourceLocation)
        let before = StoreSnapshot.capture(store)
        publishNewVersions()
        registry.setOverride(override)
        return before
    }

    /// Installs everything, publishes new versions, overrides answers with `override`, syncs.
    /// Expected: exit 3, one error line naming `failing` with advice, the previous file kept,
    /// no temporary file, the others replaced, nothing pruned, no secret printed.
    @discardableResult
    func expectIsolatedFailure(of failing: String = "beta", arguments: [String] = ["sync"], sourceLocation: SourceLocation = #_sourceLocation,
                               override: @escaping ScriptedRegistry.Override) async throws -> ChildResult {
        let before = try await installThenOverride(override, sourceLocation: sourceLocation)
        let result = try await run(arguments)
        #expect(result.status == 3, "exit \(result.status): \(result.all)", sourceLocation: sourceLocation)
        let errors = result.stderrLines.filter { $0.hasPrefix("manashiki-sync: error: \(failing): ") }
        #expect(errors.count == 1 && errors.allSatisfy { $0.contains(" — ") }, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        var others: [String: Data] = [:]
        for id in ["alpha", "beta", "gamma"] where id != failing { others[id] = expected(id) }
        Invariants.expectStandardOutcome(store: store, before: before, failed: [failing], synced: others, sourceLocation: sourceLocation)
        #expect(!result.all.contains(Keys.publishable) && !result.all.contains("SIGNATURESECRET"), sourceLocation: sourceLocation)
        return result
    }

    /// Installs everything, publishes new versions, overrides, syncs. Expected: the run fails
    /// (exit 1) with an error line, and the store is exactly as before (nothing replaced or pruned).
    @discardableResult
    func expectRunFailureChangingNothing(sourceLocation: SourceLocation = #_sourceLocation, override: @escaping ScriptedRegistry.Override) async throws -> ChildResult {
        let before = try await installThenOverride(override, sourceLocation: sourceLocation)
        let result = try await run()
        #expect(result.status == 1, "exit \(result.status): \(result.all)", sourceLocation: sourceLocation)
        #expect(result.stderrLines.contains { $0.hasPrefix("manashiki-sync: error: ") }, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        Invariants.expectStandardOutcome(store: store, before: before, failed: ["alpha", "beta", "gamma"], sourceLocation: sourceLocation)
        #expect(!result.all.contains(Keys.publishable), sourceLocation: sourceLocation)
        return result
    }
}
#endif

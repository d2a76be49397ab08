import Foundation
import Manashiki
import ManashikiRegistry
import ManashikiTestSupport
import Testing
@testable import ManashikiSync

/// A mirror that accepts the connection and then says nothing: the transfer fails over to the
/// registry after the mirror idle timeout, instead of hanging the run.
@Suite("Mirror that stalls")
struct MirrorStallTests {
    /// What a run against a silent mirror (idle timeout 1 s) did.
    struct Outcome {
        var report: SyncReport
        var requests: Int
        var port: UInt16
        var installed: [String: Data]
        var served: [String: Data]
    }

    /// Syncs `models` (10,000 to 20,000 bytes each) with a mirror that accepts the connection,
    /// reads the request, then says nothing until the peer hangs up.
    static func runAgainstSilentMirror(_ models: [String]) async throws -> Outcome {
        let key = "mk_pub_acme_AbCdEfGhIjKlMnOpQrSt01"
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: key, organization: "acme")]
        for (i, id) in models.enumerated() {
            catalog.add(model: RegistryModel(modelId: id, version: "1.0.0", artifact: .generated(size: 20_000 - i * 5_000, seed: UInt64(i + 5)), platforms: ["linux"]))
        }
        let registry = try DevelopmentRegistry.start(catalog: catalog)
        defer { registry.stop() }
        let silent = try ScriptedOrigin { _ in [.silence(seconds: 60)] }
        defer { silent.stop() }
        let store = TestStore()
        var manifest = Manifest(registry: RegistrySettings(baseURL: registry.apiBaseURL), store: StoreSettings(directory: store.url.path),
                                policies: SyncPolicies(checkCompatibility: false), models: models.map { ModelSpec(id: $0) })
        manifest.sources = [ArtifactSource(.mirror(URL(string: "http://127.0.0.1:\(silent.port)/bundle")!))]
        var options = Fixture.options()
        options.mirrorIdleTimeout = 1
        let report = try await Reconciler(manifest: manifest, apiKey: key, options: options).run()
        var installed: [String: Data] = [:], served: [String: Data] = [:]
        for id in models {
            installed[id] = try? Data(contentsOf: store.file(id))
            served[id] = registry.artifactBytes(modelId: id)
        }
        return Outcome(report: report, requests: silent.requests.count, port: silent.port, installed: installed, served: served)
    }

    @Test("a silent mirror is abandoned after the mirror idle timeout and the model comes from the registry")
    func stallFallsThrough() async throws {
        let run = try await Self.runAgainstSilentMirror(["tiny"])
        #expect(run.report.outcome == .changed, "\(run.report.summary)")
        #expect(run.requests > 0, "the mirror was never asked")
        #expect(run.report["tiny"]?.source == "registry")
        #expect(run.report.bytesBySource == ["registry": 20_000])
        #expect(run.installed["tiny"] == run.served["tiny"])
    }

    @Test("a silent mirror costs one idle timeout per run, not one per model: it is named in one warning and not asked again")
    func stallOncePerRun() async throws {
        let run = try await Self.runAgainstSilentMirror(["one", "two", "three"])
        #expect(run.report.outcome == .changed, "\(run.report.summary)")
        #expect(run.requests == 1, "\(run.requests) requests")
        #expect(run.report.bytesBySource == ["registry": 45_000])
        #expect(run.installed == run.served)
        #expect(run.report.warnings.filter { $0.contains("mirror http://127.0.0.1:\(run.port)/bundle did not answer") }.count == 1, "\(run.report.warnings)")
    }
}

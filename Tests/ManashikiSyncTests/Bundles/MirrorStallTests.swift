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
    @Test("a silent mirror is abandoned after the mirror idle timeout and the model comes from the registry")
    func stallFallsThrough() async throws {
        let key = "mk_pub_acme_AbCdEfGhIjKlMnOpQrSt01"
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: key, organization: "acme")]
        catalog.add(model: RegistryModel(modelId: "tiny", version: "1.0.0", artifact: .generated(size: 20_000, seed: 5), platforms: ["linux"]))
        let registry = try DevelopmentRegistry.start(catalog: catalog)
        defer { registry.stop() }
        // Accepts the connection, reads the request, then says nothing until the peer hangs up.
        let silent = try ScriptedOrigin { _ in [.silence(seconds: 60)] }
        defer { silent.stop() }
        let store = TestStore()
        var manifest = Manifest(registry: RegistrySettings(baseURL: registry.apiBaseURL), store: StoreSettings(directory: store.url.path),
                                policies: SyncPolicies(checkCompatibility: false), models: [ModelSpec(id: "tiny")])
        manifest.sources = [ArtifactSource(.mirror(URL(string: "http://127.0.0.1:\(silent.port)/bundle")!))]
        var options = Fixture.options()
        options.mirrorIdleTimeout = 1

        let report = try await Reconciler(manifest: manifest, apiKey: key, options: options).run()
        #expect(report.outcome == .changed, "\(report.summary)")
        #expect(!silent.requests.isEmpty, "the mirror was never asked")
        #expect(report["tiny"]?.source == "registry")
        #expect(report.bytesBySource == ["registry": 20_000])
        #expect(try Data(contentsOf: store.file("tiny")) == registry.artifactBytes(modelId: "tiny"))
    }

    @Test("a silent mirror costs one idle timeout per run, not one per model: it is named in one warning and not asked again")
    func stallOncePerRun() async throws {
        let key = "mk_pub_acme_AbCdEfGhIjKlMnOpQrSt01"
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: key, organization: "acme")]
        for (i, id) in ["one", "two", "three"].enumerated() {
            catalog.add(model: RegistryModel(modelId: id, version: "1.0.0", artifact: .generated(size: 10_000, seed: UInt64(i + 1)), platforms: ["linux"]))
        }
        let registry = try DevelopmentRegistry.start(catalog: catalog)
        defer { registry.stop() }
        let silent = try ScriptedOrigin { _ in [.silence(seconds: 60)] }
        defer { silent.stop() }
        let store = TestStore()
        var manifest = Manifest(registry: RegistrySettings(baseURL: registry.apiBaseURL), store: StoreSettings(directory: store.url.path),
                                policies: SyncPolicies(checkCompatibility: false), models: ["one", "two", "three"].map { ModelSpec(id: $0) })
        manifest.sources = [ArtifactSource(.mirror(URL(string: "http://127.0.0.1:\(silent.port)/bundle")!))]
        var options = Fixture.options()
        options.mirrorIdleTimeout = 1

        let report = try await Reconciler(manifest: manifest, apiKey: key, options: options).run()
        #expect(report.outcome == .changed, "\(report.summary)")
        #expect(silent.requests.count == 1, "\(silent.requests.count) requests")
        #expect(report.bytesBySource == ["registry": 30_000])
        #expect(report.warnings.filter { $0.contains("mirror http://127.0.0.1:\(silent.port)/bundle did not answer") }.count == 1, "\(report.warnings)")
    }
}

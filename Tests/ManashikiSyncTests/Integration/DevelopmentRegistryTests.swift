import Testing
import Foundation
import Manashiki
import ManashikiRegistry
@testable import ManashikiSync

/// The reconciler over real loopback HTTP: `ManashikiClient` against the development registry.
@Suite("Sync against the development registry")
struct DevelopmentRegistryTests {
    static let publicKey = "mk_pub_acme_AbCdEfGhIjKlMnOpQrSt01"
    static let legacyKey = "sk_live_AbCdEfGhIjKlMnOpQrSt01"

    static func start() throws -> DevelopmentRegistry {
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: publicKey, organization: "acme"), RegistryKey(secret: legacyKey, organization: "acme")]
        catalog.add(model: RegistryModel(modelId: "tiny", version: "1.0.0", artifact: .generated(size: 300_000, seed: 7), platforms: ["linux", "macos"]))
        catalog.add(model: RegistryModel(modelId: "ios-only", version: "1.0.0", artifact: .generated(size: 1000, seed: 3), platforms: ["ios"]))
        var lora = RegistryModel(modelId: "private-lora", version: "2.0.0", artifact: .generated(size: 50_000, seed: 9), platforms: ["linux"], visibility: "private")
        lora.organization = "acme"
        catalog.add(model: lora)
        return try DevelopmentRegistry.start(catalog: catalog)
    }

    func manifest(_ registry: DevelopmentRegistry, _ store: TestStore, session: SessionSource?) -> Manifest {
        Manifest(registry: RegistrySettings(baseURL: registry.apiBaseURL), store: StoreSettings(directory: store.url.path),
                 models: [ModelSpec(id: "tiny", version: .caret(ModelVersion("1.0")!)), ModelSpec(id: "ios-only", isOptional: true),
                          ModelSpec(id: "private-lora", session: session)])
    }

    @Test("first sync, no-op (one API request, nothing hashed), then a new version replaces the file")
    func lifecycle() async throws {
        let registry = try Self.start()
        defer { registry.stop() }
        let store = TestStore()
        let m = manifest(registry, store, session: .mint(principalId: "fleet-agent", ttlSec: 600))
        let options = Fixture.options()
        let first = try await Reconciler(manifest: m, apiKey: Self.legacyKey, options: options).run()
        #expect(first.outcome == .changed, "\(first.summary)")
        #expect(first["tiny"]?.status == .installed(version: "1.0.0"))
        #expect(first["ios-only"]?.status == .skipped)
        #expect(first["private-lora"]?.status == .installed(version: "2.0.0"))
        #expect(try Data(contentsOf: store.file("tiny")) == registry.artifactBytes(modelId: "tiny"))
        #expect(try Data(contentsOf: store.file("private-lora")) == registry.artifactBytes(modelId: "private-lora"))

        registry.clearRequestLog()
        let again = try await Reconciler(manifest: m, apiKey: Self.legacyKey, options: options).run()
        #expect(again.outcome == .inSync)
        #expect(again.bytesHashed == 0)
        #expect(registry.requestLog().map(\.path) == ["/api/models"])

        try registry.publish(modelId: "tiny", version: "1.1.0", artifact: .generated(size: 310_000, seed: 8))
        let upgrade = try await Reconciler(manifest: m, apiKey: Self.legacyKey, options: options).run()
        #expect(upgrade.outcome == .changed)
        #expect(upgrade["tiny"]?.status == .replaced(from: "1.0.0", to: "1.1.0"))
        #expect(try Data(contentsOf: store.file("tiny")) == registry.artifactBytes(modelId: "tiny"))
        #expect(store.readState()?.models["tiny"]?.version == "1.1.0")
    }

    @Test("with a publishable key and no session, the private model is blocked and the rest installs")
    func privateWithoutSession() async throws {
        let registry = try Self.start()
        defer { registry.stop() }
        let store = TestStore()
        let report = try await Reconciler(manifest: manifest(registry, store, session: nil), apiKey: Self.publicKey, options: Fixture.options()).run()
        #expect(report.outcome == .partialFailure)
        #expect(report["tiny"]?.status == .installed(version: "1.0.0"))
        #expect(report["private-lora"]?.status == .blocked)
        #expect(registry.requestLog().filter { $0.path.hasPrefix("/api/download/private-lora") }.isEmpty)
    }

    @Test("a session issued by a backend and passed through the environment downloads the private model")
    func sessionFromEnvironment() async throws {
        let registry = try Self.start()
        defer { registry.stop() }
        let store = TestStore()
        let token = registry.issueSession(principalId: "doctor-abc123")
        let report = try await Reconciler(manifest: manifest(registry, store, session: .environment("MODEL_SESSION")), apiKey: Self.publicKey,
                                          options: Fixture.options(env: ["MODEL_SESSION": token])).run()
        #expect(report["private-lora"]?.status == .installed(version: "2.0.0"))
        #expect(!report.summary.contains(token))
    }
}

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Testing
import Manashiki
import ManashikiSync
import ManashikiRegistry

/// Keys the fixtures' registries accept; tests check they never appear in any output.
enum Keys {
    static let publishable = "mk_pub_demo_RelSecretKeyZ0123456789abcd"
    static let legacy = "sk_live_RelLegacyKeyZ0123456789xyz"
}

/// A development registry with three small models, a scratch directory with a manifest whose
/// store is `<dir>/models`, and helpers to run the built `manashiki-sync` against it.
final class SyncFixture: SyncWorkspace, @unchecked Sendable {
    static let sizes = ["alpha": 64 << 10, "beta": 128 << 10, "gamma": 96 << 10]

    let registry: DevelopmentRegistry
    let scratch: ScratchDirectory
    var directory: URL { scratch.url }
    /// The store; `storeOverride` points it elsewhere (a tmpfs, a read-only mount).
    var store: URL
    var environment: [String: String] { ["MANASHIKI_API_KEY": Keys.publishable] }

    init(models: [String] = ["alpha", "beta", "gamma"], store: URL? = nil, prune: String = TestManifest.defaultPrune,
         policies: String? = nil, extraEntries: [String] = []) throws {
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: Keys.publishable, organization: "demo"), RegistryKey(secret: Keys.legacy, organization: "demo")]
        for (i, id) in ["alpha", "beta", "gamma"].enumerated() {
            catalog.add(model: RegistryModel(modelId: id, version: "1.0.0", artifact: .generated(size: Self.sizes[id]!, seed: UInt64(200 + i)), platforms: ["linux"]))
        }
        catalog.add(model: RegistryModel(modelId: "secret", version: "1.0.0", artifact: .generated(size: 32 << 10, seed: 299),
                                         platforms: ["linux"], visibility: "private", organization: "demo"))
        registry = try DevelopmentRegistry.start(catalog: catalog)
        scratch = ScratchDirectory("manashiki-rel")
        self.store = store ?? scratch.url.appendingPathComponent("models")
        try writeManifest(models: models, prune: prune, policies: policies, extraEntries: extraEntries)
    }

    deinit { registry.stop() }

    /// Writes the manifest (the store path is absolute).
    func writeManifest(models: [String], prune: String = TestManifest.defaultPrune, policies: String? = nil,
                       extraEntries: [String] = [], baseURL: URL? = nil) throws {
        try TestManifest.write(to: manifestURL, baseURL: baseURL ?? registry.apiBaseURL, store: store.path, models: models,
                               extraEntries: extraEntries, prune: prune, policies: policies)
    }

    func expected(_ id: String) -> Data { registry.artifactBytes(modelId: id) ?? Data() }

    /// A first successful sync of every model in the manifest; returns the store's snapshot.
    @discardableResult
    func syncOnce(sourceLocation: SourceLocation = #_sourceLocation) async throws -> StoreSnapshot {
        let first = try await run()
        #expect(first.status == 0, "first sync: \(first.all)", sourceLocation: sourceLocation)
        return StoreSnapshot.capture(store)
    }

    /// Publishes a new version of `id` (different bytes) so the next sync replaces it.
    func publishNewVersion(_ id: String, version: String, seed: UInt64) throws {
        try registry.publish(modelId: id, version: version, artifact: .generated(size: Self.sizes[id] ?? 64 << 10, seed: seed))
    }

    /// An SDK client on this registry storing into the fixture's store.
    func client(transport: any HTTPTransport = DefaultTransport()) throws -> ManashikiClient {
        try ManashikiClient(apiKey: Keys.publishable, baseURL: registry.apiBaseURL, transport: transport, storageDirectory: store)
    }
}
#endif

import Foundation
import Manashiki
import ManashikiRegistry
import ManashikiTestSupport

/// A development registry on ephemeral loopback ports with a small catalog, plus a temporary
/// storage directory, for integration tests over real HTTP.
final class RegistryFixture {
    static let publicKey = "mk_pub_acme_AbCdEfGhIjKlMnOpQrSt01"
    static let serverKey = "sk_live_AbCdEfGhIjKlMnOpQrSt01"

    let registry: DevelopmentRegistry
    let storage = ScratchDirectory()

    init(size: Int = 3 << 20 | 777, urlTTL: Int = 300) throws {
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: Self.publicKey, organization: "acme"), RegistryKey(secret: Self.serverKey, organization: "acme")]
        catalog.add(model: RegistryModel(modelId: "tiny", version: "1.0.0", artifact: .generated(size: size, seed: 7), platforms: ["linux", "macos"]))
        var priv = RegistryModel(modelId: "private-lora", version: "2.0.0", artifact: .generated(size: 200_000, seed: 9), platforms: ["linux"], visibility: "private")
        priv.organization = "acme"
        catalog.add(model: priv)
        var configuration = RegistryConfiguration()
        configuration.urlTTL = urlTTL
        registry = try DevelopmentRegistry.start(catalog: catalog, configuration: configuration)
    }

    deinit {
        registry.stop()
    }

    func client(_ key: String = RegistryFixture.publicKey, transport: any HTTPTransport = DefaultTransport()) throws -> ManashikiClient {
        try ManashikiClient(apiKey: key, baseURL: registry.apiBaseURL, transport: transport, storageDirectory: storage.url)
    }

    var installed: URL { storage.file("tiny.bin") }

    /// Stray files in the partial folder (must be none after any download; a kept partial
    /// with a valid sidecar is not one).
    var leftovers: [String] { PartialFolder.strays(in: storage.url) }

    /// Partial downloads kept to be resumed.
    var keptPartials: [(name: String, bytes: Int64, sidecar: PartialSidecar)] { PartialFolder.kept(in: storage.url) }

    /// Installs a first verified copy and returns its bytes and inode.
    func installFirstCopy() async throws -> (Data, UInt64) {
        _ = try await client().downloadModel("tiny")
        let data = try Data(contentsOf: installed)
        return (data, try inode(installed))
    }

    func inode(_ url: URL) throws -> UInt64 {
        try FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as! UInt64
    }

    /// The previous file is byte-identical, the same inode, and no temporary file remains.
    func previousIsIntact(_ previous: (Data, UInt64)) throws -> Bool {
        try Data(contentsOf: installed) == previous.0 && inode(installed) == previous.1 && leftovers.isEmpty
    }

    /// Storage-origin requests never carry credentials.
    var storageRequestsAreClean: Bool {
        registry.requestLog().filter { $0.origin == .storage }.allSatisfy { $0.header("X-API-Key") == nil && $0.header("Authorization") == nil }
    }
}

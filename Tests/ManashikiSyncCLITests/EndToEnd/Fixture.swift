#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Manashiki
import Testing
import ManashikiRegistry
import ManashikiSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A development registry with three small models and a scratch directory with a manifest
/// whose store is `models` (relative, as users write it).
final class Fixture: SyncWorkspace, @unchecked Sendable {
    /// A publishable key the registry accepts (tests check it never appears in any output).
    static let key = "mk_pub_demo_Kq7SecretKeyZ0123456789abcd"
    /// A legacy key (can mint sessions).
    static let legacyKey = "sk_live_Kq7LegacyKeyZ0123456789"

    let registry: DevelopmentRegistry
    private let scratch = ScratchDirectory("manashiki-cli")
    var directory: URL { scratch.url }
    var store: URL { directory.appendingPathComponent("models") }
    var environment: [String: String] { ["MANASHIKI_API_KEY": Fixture.key] }

    init(models: [String] = ["alpha", "beta"], extraModelEntries: [String] = [], policies: String? = nil,
         configuration: RegistryConfiguration = .init()) throws {
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: Fixture.key), RegistryKey(secret: Fixture.legacyKey, organization: "demo")]
        catalog.add(model: RegistryModel(modelId: "alpha", version: "1.0.0", artifact: .generated(size: 64 << 10, seed: 101), platforms: ["linux"]))
        catalog.add(model: RegistryModel(modelId: "beta", version: "2.1.0", artifact: .generated(size: 128 << 10, seed: 102), platforms: ["linux"]))
        catalog.add(model: RegistryModel(modelId: "secret", version: "1.0.0", artifact: .generated(size: 32 << 10, seed: 103),
                                         platforms: ["linux"], visibility: "private", organization: "demo"))
        registry = try DevelopmentRegistry.start(catalog: catalog, configuration: configuration)
        try writeManifest(models: models, extraModelEntries: extraModelEntries, policies: policies)
    }

    deinit { registry.stop() }

    /// Writes `manashiki.json` for `models` (ids) plus raw JSON entries.
    func writeManifest(models: [String], extraModelEntries: [String] = [], policies: String? = nil, prune: String = TestManifest.defaultPrune) throws {
        try TestManifest.write(to: manifestURL, baseURL: registry.apiBaseURL, store: "models", models: models,
                               extraEntries: extraModelEntries, prune: prune, policies: policies)
    }

    func expected(_ id: String) -> Data { registry.artifactBytes(modelId: id) ?? Data() }
}

/// Whether `text` contains control characters other than newline (ESC, CR, BEL…).
func hasControlCharacters(_ text: String) -> Bool {
    text.unicodeScalars.contains { ($0.value < 0x20 && $0.value != 0x0A) || (0x7F...0x9F).contains($0.value) }
}
#endif

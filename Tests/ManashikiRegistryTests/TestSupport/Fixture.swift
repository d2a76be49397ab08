import Foundation
import ManashikiRegistry

/// Keys and a small catalog shared by the tests; each test starts its own registry.
enum Fixture {
    static let publishable = "mk_pub_acme_0123456789abcdefghij"
    static let live = "mk_live_acme_0123456789abcdefghij"
    static let service = "mk_svc_acme_0123456789abcdefghij"
    static let legacy = "sk_live_0123456789abcdefghijABCD"
    static let globex = "mk_pub_globex_0123456789abcdefghij"

    /// 64 KiB public model.
    static let tiny = "tiny"
    /// Private model of org acme.
    static let secret = "secret-model"
    /// Sunset model.
    static let old = "old-model"
    /// Private model of org globex.
    static let globexPrivate = "globex-private"

    static func catalog() -> RegistryCatalog {
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: publishable), RegistryKey(secret: live), RegistryKey(secret: service),
                        RegistryKey(secret: legacy), RegistryKey(secret: globex)]
        catalog.add(model: RegistryModel(modelId: tiny, version: "1.0.0", artifact: .generated(size: 64 << 10, seed: 7),
                                         platforms: ["linux", "macos"], visibility: "public", status: "production",
                                         minOS: "14.2.1", card: ["title": "Tiny", "tags": ["asr"]],
                                         format: ["type": "gguf"], metrics: ["wer": 0.5]))
        catalog.add(model: RegistryModel(modelId: secret, version: "2.0.0", artifact: .generated(size: 32 << 10, seed: 8),
                                         platforms: ["ios"], visibility: "private", organization: "acme"))
        catalog.add(model: RegistryModel(modelId: old, version: "0.1.0", artifact: .data(Data("old bytes".utf8)),
                                         platforms: ["ios"], status: "sunset", sunsetAt: "2026-01-01T00:00:00Z"))
        catalog.add(model: RegistryModel(modelId: globexPrivate, version: "1.0.0", artifact: .generated(size: 1024, seed: 9),
                                         platforms: ["android"], visibility: "private", organization: "globex"))
        return catalog
    }

    static func start(_ catalog: RegistryCatalog = catalog(), configuration: RegistryConfiguration = .init()) throws -> DevelopmentRegistry {
        try DevelopmentRegistry.start(catalog: catalog, configuration: configuration)
    }

    /// The repository's `examples/registry` directory.
    static var examplesDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples/registry")
    }
}

extension DevelopmentRegistry {
    /// `apiBaseURL` + path.
    func api(_ path: String) -> URL { URL(string: apiBaseURL.absoluteString + path)! }
    /// The storage origin's port.
    var storagePort: Int { storageBaseURL.port! }
    /// The API origin's port.
    var apiPort: Int { apiBaseURL.port! }
}

import Foundation

/// Everything a development registry serves: keys, models, versions ready to upload and
/// faults armed at start-up. Build it in code, or load it from a catalog directory.
///
/// ```swift
/// var catalog = RegistryCatalog()
/// catalog.keys = [RegistryKey(secret: "mk_pub_acme_0123456789abcdefghij")]
/// catalog.add(model: RegistryModel(modelId: "tiny", version: "1.0.0", artifact: .generated(size: 4096, seed: 1)))
/// ```
public struct RegistryCatalog: Sendable {
    /// The accepted API keys; any other key is answered `401 invalid_api_key`.
    public var keys: [RegistryKey]
    /// The models, in listing order.
    public var models: [RegistryModel]
    /// Versions ready to be uploaded (not served until uploaded or published).
    public var pending: [RegistryPendingVersion]
    /// Faults armed when the registry starts.
    public var faults: [RegistryFaultRule]

    /// An empty catalog.
    public init(keys: [RegistryKey] = [], models: [RegistryModel] = [], pending: [RegistryPendingVersion] = [],
                faults: [RegistryFaultRule] = []) {
        self.keys = keys
        self.models = models
        self.pending = pending
        self.faults = faults
    }

    /// Adds a model, replacing any model with the same id.
    public mutating func add(model: RegistryModel) {
        if let index = models.firstIndex(where: { $0.modelId == model.modelId }) {
            models[index] = model
        } else {
            models.append(model)
        }
    }

    /// Loads `catalog.json` from `directory` (or `directory` itself when it is a file);
    /// relative artifact paths are resolved against the file's directory.
    /// - Throws: `CatalogFileError` naming the file, the JSON path and the fix.
    public static func load(directory: URL) throws -> RegistryCatalog {
        try CatalogFileParser.load(directory: directory)
    }
}

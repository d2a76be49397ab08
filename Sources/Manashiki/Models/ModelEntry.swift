import Foundation

/// One model in the catalog (`GET /api/models`).
///
/// ```swift
/// for entry in try await client.listModels() {
///     print(entry.modelId, entry.version, entry.size, entry.sha256)
/// }
/// ```
public struct ModelEntry: Codable, Sendable, Hashable {
    /// The model id (CONTRACT §2).
    public var modelId: String
    /// The version currently published.
    public var version: String
    /// The artifact's size in bytes.
    public var size: Int64
    /// The artifact's SHA-256, 64 lowercase hex characters.
    public var sha256: String

    /// Creates an entry.
    public init(modelId: String, version: String, size: Int64, sha256: String) {
        self.modelId = modelId
        self.version = version
        self.size = size
        self.sha256 = sha256
    }
}

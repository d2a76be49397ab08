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

    /// The largest artifact size this package accepts, 1 PiB (2^50 bytes): a larger `size` in
    /// a catalog, a record, a download ticket, a bundle index or a lock file is an input error
    /// naming the entry, never arithmetic (a sum of them past `Int64` crashed the planner).
    public static let maxSize: Int64 = 1 << 50

    /// `has a size of N bytes (over 1 PiB): not a real artifact` for a size out of range.
    package static func sizeProblem(_ size: Int64) -> String? {
        if size < 0 { return "has a negative size" }
        if size > maxSize { return "has a size of \(size) bytes, over the 1 PiB this package accepts: not a real artifact" }
        return nil
    }

    /// Creates an entry.
    public init(modelId: String, version: String, size: Int64, sha256: String) {
        self.modelId = modelId
        self.version = version
        self.size = size
        self.sha256 = sha256
    }
}

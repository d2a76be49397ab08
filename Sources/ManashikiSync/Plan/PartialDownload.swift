import Foundation

/// A partial download kept in the store for a later run (`StorageDirectory.keptPartials`):
/// the artifact it belongs to and the bytes it already holds. A download of exactly that
/// artifact resumes it, so the disk-space preflight counts only the rest.
public struct PartialDownload: Sendable, Hashable {
    /// The artifact's expected SHA-256, from the partial's sidecar.
    public var sha256: String
    /// The artifact's size, from the sidecar.
    public var size: Int64
    /// Bytes already on disk.
    public var bytes: Int64

    /// Creates one.
    public init(sha256: String, size: Int64, bytes: Int64) {
        self.sha256 = sha256
        self.size = size
        self.bytes = bytes
    }
}

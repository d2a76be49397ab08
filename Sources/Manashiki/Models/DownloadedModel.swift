import Foundation

/// A model installed on disk by `downloadModel(_:session:progress:)`.
public struct DownloadedModel: Sendable, Hashable {
    /// The model id.
    public var modelId: String
    /// Where the artifact is: `<storageDirectory>/<modelId>.bin`.
    public var localURL: URL
    /// The file's SHA-256 (64 lowercase hex), computed while downloading and checked against
    /// the registry's digest when the registry gave one.
    public var sha256: String
    /// The file's size in bytes.
    public var size: Int64
    /// The version the registry said it served, if it said.
    public var version: String?
    /// Whether the digest was checked against the registry's (false only when the registry
    /// gave no digest).
    public var verified: Bool

    /// The installed file's identity, taken from its descriptor just before the rename (the
    /// sync agent records it, so a file swapped in by someone else is noticed).
    package var fileStamp: FileStamp?

    /// Creates a value.
    public init(modelId: String, localURL: URL, sha256: String, size: Int64, version: String?, verified: Bool) {
        self.modelId = modelId
        self.localURL = localURL
        self.sha256 = sha256
        self.size = size
        self.version = version
        self.verified = verified
    }
}

/// Size, modification time and inode of a file, as `fstat` reports them.
package struct FileStamp: Sendable, Hashable {
    package var size: Int64
    package var mtimeNanoseconds: Int64
    package var inode: UInt64

    package init(size: Int64, mtimeNanoseconds: Int64, inode: UInt64) {
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        self.inode = inode
    }

    /// The stamp of an open file.
    package static func of(fd: Int32) -> FileStamp? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        #if canImport(Darwin)
        let mtime = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        return FileStamp(size: Int64(info.st_size), mtimeNanoseconds: mtime, inode: UInt64(info.st_ino))
    }
}

/// The body of `GET /api/download/{modelId}`.
struct DownloadTicket: Decodable, Sendable {
    var downloadUrl: String
    var sha256: String?
    var size: Int64?
    var expiresIn: Int?
    var version: String?
}

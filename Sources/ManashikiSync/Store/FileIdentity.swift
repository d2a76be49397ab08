import Foundation

/// What `stat` says about a file: if all three are unchanged since the file was hashed, the
/// file is trusted without re-hashing; anything else means it changed behind our back.
public struct FileIdentity: Sendable, Hashable, Codable {
    /// The size in bytes.
    public var size: Int64
    /// The modification time, in nanoseconds since 1970.
    public var mtimeNanoseconds: Int64
    /// The inode number.
    public var inode: UInt64

    /// Creates an identity.
    public init(size: Int64, mtimeNanoseconds: Int64, inode: UInt64) {
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        self.inode = inode
    }

    /// The identity of the regular file at `url` (symbolic links are not followed), or nil if
    /// there is none.
    public static func of(_ url: URL) -> FileIdentity? {
        guard let info = POSIXFile.lstatInfo(url.path), POSIXFile.isRegular(info) else { return nil }
        #if canImport(Darwin)
        let mtime = Int64(info.st_mtimespec.tv_sec) * 1_000_000_000 + Int64(info.st_mtimespec.tv_nsec)
        #else
        let mtime = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        #endif
        return FileIdentity(size: Int64(info.st_size), mtimeNanoseconds: mtime, inode: UInt64(info.st_ino))
    }
}

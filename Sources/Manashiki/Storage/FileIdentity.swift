import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What `stat` says about a file: if all three are unchanged since the file was hashed, the
/// file is trusted without re-hashing; anything else means it changed behind our back.
///
/// The SDK takes it from the descriptor of a file it installs (just before the rename, which
/// keeps size, mtime and inode); the sync agent records it in its state file.
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
        guard let info = POSIX.lstatInfo(url.path), POSIX.isRegular(info) else { return nil }
        return FileIdentity(info)
    }

    /// The identity of an open file, or nil if `fstat` fails.
    package static func of(fd: Int32) -> FileIdentity? {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        return FileIdentity(info)
    }

    private init(_ info: stat) {
        self.init(size: Int64(info.st_size), mtimeNanoseconds: FileMetadata.modificationNanoseconds(info), inode: UInt64(info.st_ino))
    }
}

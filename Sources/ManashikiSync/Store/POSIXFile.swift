import Foundation
import Manashiki
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the POSIX calls the store needs (fsync, flock, stat, rename).
enum POSIXFile {
    /// Flushes a directory so a rename inside it is durable (`POSIX.sync`: F_FULLFSYNC on
    /// Apple platforms).
    static func syncDirectory(_ url: URL) {
        let fd = open(url.path, O_RDONLY)
        guard fd >= 0 else { return }
        _ = try? POSIX.sync(fd, path: url.path)
        close(fd)
    }

    /// `lstat` of a path.
    static func lstatInfo(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    /// Whether `info` describes a regular file.
    static func isRegular(_ info: stat) -> Bool { (info.st_mode & S_IFMT) == S_IFREG }

    /// Tries to take an exclusive flock without waiting; true when taken.
    static func tryLock(_ fd: Int32) -> Bool { flock(fd, LOCK_EX | LOCK_NB) == 0 }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin wrappers over the POSIX calls the store needs (flock, stat).
enum POSIXFile {
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

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux)
import CManashikiShims
#endif

/// Linux-only file system calls, reached through the C shims (Swift's Glibc module does not
/// expose them). Elsewhere they report "not available" and callers take their portable path.
enum KernelFileCalls {
    /// `sync_file_range(SYNC_FILE_RANGE_WRITE)`: starts writeback without waiting (see
    /// `POSIX.startWriteback`). A no-op elsewhere.
    static func startWriteback(_ fd: Int32, from offset: Int64, length: Int64) {
        #if os(Linux)
        _ = mk_start_writeback(fd, offset, length)
        #endif
    }

    /// `copy_file_range(2)` of up to `length` bytes; returns the bytes copied, or -1 with errno
    /// set (ENOSYS where there is no such call).
    static func copyFileRange(_ source: Int32, _ inOffset: inout Int64, _ destination: Int32, _ outOffset: inout Int64, length: Int64) -> Int {
        #if os(Linux)
        var i = inOffset, o = outOffset
        let n = mk_copy_file_range(source, &i, destination, &o, length)
        inOffset = i
        outOffset = o
        return Int(n)
        #else
        errno = ENOSYS
        return -1
        #endif
    }
}

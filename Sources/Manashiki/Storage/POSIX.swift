import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Thin throwing wrappers over the POSIX calls the store needs. Every failure becomes
/// `APIError.fileSystem` naming the operation and the path.
package enum POSIX {
    /// Retries `body` while it fails with EINTR; returns its result or throws.
    @discardableResult
    package static func call(_ operation: String, _ path: @autoclosure () -> String, _ body: () -> Int32) throws -> Int32 {
        while true {
            let r = body()
            if r >= 0 { return r }
            let code = errno
            if code == EINTR { continue }
            throw APIError.fileSystem(operation: operation, path: path(), code: code)
        }
    }

    /// Opens a directory without following a symlink at its last component.
    package static func openDirectory(_ path: String) throws -> Int32 {
        try call("open directory", path) { open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
    }

    /// Writes all of `buffer` at the current offset, retrying partial writes.
    package static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, path: String) throws {
        var offset = 0
        while offset < buffer.count {
            let n = write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            if n < 0 {
                if errno == EINTR { continue }
                throw APIError.fileSystem(operation: "write", path: path, code: errno)
            }
            offset += n
        }
    }

    /// Writes all of `buffer` at `offset` (`pwrite`), retrying partial writes; the file
    /// position is not used, so writers at different offsets of one file do not interfere.
    package static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer, at offset: Int64, path: String) throws {
        var done = 0
        while done < buffer.count {
            let n = pwrite(fd, buffer.baseAddress! + done, buffer.count - done, off_t(offset + Int64(done)))
            if n < 0 {
                if errno == EINTR { continue }
                throw APIError.fileSystem(operation: "write", path: path, code: errno)
            }
            done += n
        }
    }

    /// Makes a file's (or a directory's) contents durable: `F_FULLFSYNC` on Apple platforms
    /// (falling back to `fsync` where the file system does not support it), `fsync` on Linux.
    /// See `DurableFlush`.
    package static func sync(_ fd: Int32, path: String) throws {
        try DurableFlush.system.flush(fd, path: path)
    }

    /// Asks the kernel to start writing a range back to disk without waiting (Linux), so a
    /// later fsync has little left to do. A no-op elsewhere.
    package static func startWriteback(_ fd: Int32, from offset: Int64, length: Int64) {
        KernelFileCalls.startWriteback(fd, from: offset, length: length)
    }

    /// `lstat` of a path (symbolic links not followed), or nil.
    package static func lstatInfo(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    /// Whether `info` describes a regular file.
    package static func isRegular(_ info: stat) -> Bool { (info.st_mode & S_IFMT) == S_IFREG }

    /// The `errno` behind a Foundation error (POSIX domain, an underlying POSIX error, or the
    /// Cocoa file errors), or `EIO`.
    package static func errnoCode(of error: any Error) -> Int32 {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return Int32(ns.code) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        if ns.domain == NSCocoaErrorDomain {
            switch ns.code {
            case NSFileNoSuchFileError, NSFileReadNoSuchFileError: return ENOENT
            case NSFileWriteOutOfSpaceError: return ENOSPC
            case NSFileReadNoPermissionError, NSFileWriteNoPermissionError: return EACCES
            case NSFileWriteVolumeReadOnlyError: return EROFS
            default: break
            }
        }
        return EIO
    }

    /// 16 random lowercase hex characters.
    package static func randomSuffix() -> String {
        var g = SystemRandomNumberGenerator()
        return String(format: "%016llx", g.next() as UInt64)
    }
}

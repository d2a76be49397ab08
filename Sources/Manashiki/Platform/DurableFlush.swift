import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How bytes reach stable storage: the one flush every install, state file and directory goes
/// through (`POSIX.sync`).
///
/// On Darwin `fsync` only hands the data to the drive, which may keep it in its cache; a power
/// loss can then lose a "durable" install. `fcntl(fd, F_FULLFSYNC)` asks the drive to flush its
/// cache too (fsync(2) and fcntl(2) man pages on macOS/iOS; the constant exists on every Apple
/// platform). Not every file system supports it (some network and FAT volumes fail with
/// ENOTSUP or EINVAL), so a failure falls back to `fsync`. On Linux `fsync` already flushes the
/// device cache, and there is no F_FULLFSYNC.
///
/// The primitives are injectable, so the fallback is tested on Linux.
package struct DurableFlush: Sendable {
    /// Flushes the drive's cache too; returns 0 or an errno value. Nil where there is none.
    package var fullSync: (@Sendable (Int32) -> Int32)?
    /// `fsync`; returns 0 or an errno value.
    package var fsync: @Sendable (Int32) -> Int32

    /// Creates a flush from its primitives (tests inject failing ones).
    package init(fullSync: (@Sendable (Int32) -> Int32)?, fsync: @escaping @Sendable (Int32) -> Int32) {
        self.fullSync = fullSync
        self.fsync = fsync
    }

    /// This platform's primitives.
    package static let system: DurableFlush = {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        return DurableFlush(fullSync: { fd in fcntl(fd, F_FULLFSYNC) == -1 ? errno : 0 },
                            fsync: { fd in Darwin.fsync(fd) == -1 ? errno : 0 })
        #else
        return DurableFlush(fullSync: nil, fsync: { fd in Glibc.fsync(fd) == -1 ? errno : 0 })
        #endif
    }()

    /// Flushes `fd` (a file or a directory): `F_FULLFSYNC` where there is one, `fsync` where it
    /// fails or there is none. EINTR is retried.
    /// - Returns: which primitive made the data durable.
    /// - Throws: `APIError.fileSystem` naming `path` when `fsync` fails too.
    @discardableResult
    package func flush(_ fd: Int32, path: String) throws -> Primitive {
        if let fullSync {
            var code = fullSync(fd)
            while code == EINTR { code = fullSync(fd) }
            if code == 0 { return .fullSync }
        }
        var code = fsync(fd)
        while code == EINTR { code = fsync(fd) }
        guard code == 0 else { throw APIError.fileSystem(operation: "flush to disk", path: path, code: code) }
        return .fsync
    }

    /// Which call made a flush durable.
    package enum Primitive: Sendable, Equatable { case fullSync, fsync }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a small file atomically and durably: a temporary file in the same directory
/// (`O_EXCL`), written, flushed, renamed over the target, and the directory flushed. A crash
/// leaves the old file or the new one, never half of one, and no temporary under the final name.
package enum DurableFile {
    /// Writes `data` to `url`.
    /// - Throws: `APIError.fileSystem` naming the path.
    package static func write(_ data: Data, to url: URL) throws {
        let directory = url.deletingLastPathComponent().path
        let temp = directory + "/." + url.lastPathComponent + ".tmp." + POSIX.randomSuffix()
        let fd = try POSIX.call("create", temp) { open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644) }
        var renamed = false
        defer { if !renamed { unlink(temp) } }
        do {
            try data.withUnsafeBytes { try POSIX.writeAll(fd, $0, path: temp) }
            try POSIX.sync(fd, path: temp)
            close(fd)
        } catch {
            close(fd)
            throw error
        }
        try POSIX.call("replace", url.path) { rename(temp, url.path) }
        renamed = true
        let dir = try POSIX.openDirectory(directory)
        defer { close(dir) }
        try POSIX.sync(dir, path: directory)
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a small file atomically and durably: the bytes go to a temporary file next to it
/// (`<name>.tmp.<random>`, so a reader that globs `*.json` or `*.prom` never sees it), which is
/// flushed to disk, renamed over the target, and the directory is flushed. A crash at any
/// point leaves either the old file or the new one, never half of one, and at most a stray
/// temporary file.
package enum DurableFile {
    /// Writes `data` to `url`, replacing any file there.
    /// - Parameter permissions: the mode of the new file (default `0644`).
    /// - Throws: `APIError.fileSystem` naming the step and the path.
    package static func replace(_ url: URL, with data: Data, permissions: mode_t = 0o644) throws {
        let directory = url.deletingLastPathComponent()
        let temp = directory.appendingPathComponent("\(url.lastPathComponent).tmp.\(POSIX.randomSuffix())")
        let fd = try POSIX.call("create", temp.path) { open(temp.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions) }
        var keep = false
        defer { if !keep { unlink(temp.path) } }
        do {
            // The umask must not narrow the mode a reader (node_exporter, another user) needs.
            _ = fchmod(fd, permissions)
            try data.withUnsafeBytes { try POSIX.writeAll(fd, $0, path: temp.path) }
            try POSIX.sync(fd, path: temp.path)
            close(fd)
        } catch {
            close(fd)
            throw error
        }
        try POSIX.call("replace", url.path) { rename(temp.path, url.path) }
        keep = true
        syncDirectory(directory)
    }

    /// Flushes a directory so a rename inside it survives a power loss (best effort: some file
    /// systems refuse to fsync a directory). `POSIX.sync`: F_FULLFSYNC on Apple platforms.
    package static func syncDirectory(_ url: URL) {
        let fd = open(url.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = try? POSIX.sync(fd, path: url.path)
        close(fd)
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way a final file is written: the bytes go to a temporary file next to it
/// (`<name>.tmp.<random>`, so a reader that globs `*.json` or `*.prom` never sees it), which is
/// flushed to disk, renamed over the target, and the directory is flushed. A crash at any
/// point leaves either the old file or the new one, never half of one, and at most a stray
/// temporary file (`LeftoverCleaner` and the SDK's partial cleanup remove those).
///
/// Used for models (`StorageDirectory.install`, through `commit`), the sync agent's state file,
/// the last-run record, the metrics file and the sidecars of kept partial downloads.
package enum DurableFile {
    /// The infix of temporary names: `<final name>.tmp.<16 hex>`.
    package static let temporaryInfix = ".tmp."

    /// Whether `name` is a temporary file of this helper (left behind only by a crash).
    package static func isTemporary(_ name: String) -> Bool { name.contains(temporaryInfix) }

    /// Writes `data` to `url`, replacing any file there (its directory must exist and not be a
    /// symbolic link).
    /// - Parameter permissions: the mode of the new file (default `0644`).
    /// - Throws: `APIError.fileSystem` naming the step and the path.
    package static func replace(_ url: URL, with data: Data, permissions: mode_t = 0o644) throws {
        let directoryPath = url.deletingLastPathComponent().path
        let directory = try POSIX.openDirectory(directoryPath)
        defer { close(directory) }
        try write(data, as: url.lastPathComponent, in: directory, directoryPath: directoryPath, permissions: permissions)
    }

    /// Writes `data` durably as `name` in the directory open as `directory`.
    /// - Parameters:
    ///   - directoryPath: the directory's path, for error messages.
    ///   - permissions: the mode of the new file (default `0644`).
    /// - Throws: `APIError.fileSystem` naming the step and the path.
    package static func write(_ data: Data, as name: String, in directory: Int32, directoryPath: String,
                              permissions: mode_t = 0o644) throws {
        let temp = name + temporaryInfix + POSIX.randomSuffix()
        let tempPath = directoryPath + "/" + temp
        let fd = try POSIX.call("create", tempPath) {
            openat(directory, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions)
        }
        do {
            // The umask must not narrow the mode a reader (node_exporter, another user) needs.
            _ = fchmod(fd, permissions)
            try data.withUnsafeBytes { try POSIX.writeAll(fd, $0, path: tempPath) }
            // Some file systems refuse to fsync a directory: for these small files the rename
            // itself is what matters, so that last flush is best effort.
            try commit(fd, path: tempPath, named: temp, in: directory, as: name, in: directory,
                       directoryPath: directoryPath, directorySyncRequired: false)
            close(fd)
        } catch {
            close(fd)
            _ = unlinkat(directory, temp, 0)
            throw error
        }
    }

    /// Flushes the open file `fd` (named `name` in `source`), renames it to `target` in
    /// `destination` and flushes `destination`: the last three steps of a durable write, for a
    /// file written elsewhere (a download).
    /// - Parameters:
    ///   - path: the file's path, for error messages.
    ///   - directoryPath: `destination`'s path, for error messages.
    ///   - directorySyncRequired: whether a failed directory flush is an error (models) or
    ///     ignored (small metadata files).
    package static func commit(_ fd: Int32, path: String, named name: String, in source: Int32,
                               as target: String, in destination: Int32, directoryPath: String,
                               directorySyncRequired: Bool = true) throws {
        try POSIX.sync(fd, path: path)
        try POSIX.call("replace", directoryPath + "/" + target) { renameat(source, name, destination, target) }
        if directorySyncRequired {
            try POSIX.sync(destination, path: directoryPath)
        } else {
            try? POSIX.sync(destination, path: directoryPath)
        }
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way a final file is written: write a temporary file, flush it, rename it over the
/// final name, flush the directory. A crash at any instant leaves the old file or the new one
/// under the final name, never part of one.
///
/// Used for models (`StorageDirectory.install`), the sync agent's state file, the last-run
/// record and the sidecars of kept partial downloads.
package enum DurableFile {
    /// The infix of temporary names: `<final name>.tmp.<16 hex>`.
    package static let temporaryInfix = ".tmp."

    /// Whether `name` is a temporary file of this helper (left behind only by a crash).
    package static func isTemporary(_ name: String) -> Bool { name.contains(temporaryInfix) }

    /// Writes `data` durably as `name` in the directory open as `directory`.
    /// - Parameter directoryPath: the directory's path, for error messages.
    /// - Throws: `APIError.fileSystem` naming the operation and the path.
    package static func write(_ data: Data, as name: String, in directory: Int32, directoryPath: String) throws {
        let temp = name + temporaryInfix + POSIX.randomSuffix()
        let tempPath = directoryPath + "/" + temp
        let fd = try POSIX.call("create", tempPath) { openat(directory, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644) }
        do {
            try data.withUnsafeBytes { try POSIX.writeAll(fd, $0, path: tempPath) }
            try commit(fd, path: tempPath, named: temp, in: directory, as: name, in: directory, directoryPath: directoryPath)
            close(fd)
        } catch {
            close(fd)
            _ = unlinkat(directory, temp, 0)
            throw error
        }
    }

    /// Writes `data` durably at `url` (its directory must exist and not be a symbolic link).
    package static func write(_ data: Data, to url: URL) throws {
        let directoryPath = url.deletingLastPathComponent().path
        let directory = try POSIX.openDirectory(directoryPath)
        defer { close(directory) }
        try write(data, as: url.lastPathComponent, in: directory, directoryPath: directoryPath)
    }

    /// Flushes the open file `fd` (named `name` in `source`), renames it to `target` in
    /// `destination` and flushes `destination`: the last three steps of a durable write, for a
    /// file written elsewhere (a download).
    /// - Parameters:
    ///   - path: the file's path, for error messages.
    ///   - directoryPath: `destination`'s path, for error messages.
    package static func commit(_ fd: Int32, path: String, named name: String, in source: Int32,
                               as target: String, in destination: Int32, directoryPath: String) throws {
        try POSIX.sync(fd, path: path)
        try POSIX.call("install", directoryPath + "/" + target) { renameat(source, name, destination, target) }
        try POSIX.sync(destination, path: directoryPath)
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The directory models are installed in, opened safely.
///
/// Layout:
/// ```
/// <storage>/<modelId>.bin                      installed, verified models
/// <storage>/.manashiki/partial/<id>.<rnd>.partial   downloads in progress (flock-ed by their writer)
/// ```
/// Every operation after opening is relative to directory descriptors, the storage directory
/// and `.manashiki` must not be symlinks, temporary files are created with `O_EXCL|O_NOFOLLOW`,
/// and installation is a `rename` (which replaces a symlink at `<id>.bin` rather than writing
/// through it), so no write can land outside the storage directory.
package final class StorageDirectory: @unchecked Sendable {
    /// The storage directory.
    package let url: URL
    /// Descriptor of the storage directory.
    package let fd: Int32
    /// Descriptor of `.manashiki/partial`.
    package let partialFD: Int32

    /// The private folder's name inside the storage directory.
    package static let privateFolder = ".manashiki"
    /// Where partial downloads live, inside the private folder.
    package static let partialFolder = "partial"
    /// The extension of partial downloads.
    package static let partialExtension = "partial"

    /// Creates the directory if needed and opens it.
    package init(url: URL) throws {
        self.url = url
        let path = url.path
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            var isDir: ObjCBool = false
            if !FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
                throw APIError.fileSystem(operation: "create directory", path: path, code: Self.errnoOf(error))
            }
        }
        do {
            fd = try POSIX.openDirectory(path)
        } catch APIError.fileSystem(_, _, let code) where code == ELOOP || code == ENOTDIR {
            throw APIError.fileSystem(operation: "use storage directory", path: path, code: ELOOP)
        }
        do {
            let privateFD = try POSIX.openSubdirectory(fd, Self.privateFolder, displayPath: path + "/" + Self.privateFolder)
            defer { close(privateFD) }
            partialFD = try POSIX.openSubdirectory(privateFD, Self.partialFolder, displayPath: path + "/" + Self.privateFolder + "/" + Self.partialFolder)
        } catch {
            close(fd)
            throw error
        }
    }

    deinit {
        close(partialFD)
        close(fd)
    }

    /// The URL of `<modelId>.bin`.
    package func modelURL(_ modelId: String) -> URL {
        url.appendingPathComponent(ModelID.fileName(for: modelId), isDirectory: false)
    }

    /// The display path of a partial file.
    package func partialPath(_ name: String) -> String {
        url.path + "/" + Self.privateFolder + "/" + Self.partialFolder + "/" + name
    }

    /// Creates a new, exclusively named and locked partial file for `modelId`.
    package func createPartial(for modelId: String) throws -> (name: String, fd: Int32) {
        for _ in 0..<8 {
            let name = "\(modelId).\(POSIX.randomSuffix()).\(Self.partialExtension)"
            let fd = openat(partialFD, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd < 0 {
                if errno == EEXIST || errno == EINTR { continue }
                throw APIError.fileSystem(operation: "create a temporary file in", path: partialPath(""), code: errno)
            }
            // Held until the file is installed or removed, so cleaners know it is live.
            _ = flock(fd, LOCK_EX | LOCK_NB)
            return (name, fd)
        }
        throw APIError.fileSystem(operation: "create a temporary file in", path: partialPath(""), code: EEXIST)
    }

    /// Removes a partial file (best effort).
    package func removePartial(_ name: String) {
        _ = unlinkat(partialFD, name, 0)
    }

    /// Atomically replaces `<modelId>.bin` with the partial file `name`, then makes the
    /// rename durable by syncing the directory.
    package func install(partial name: String, as modelId: String) throws {
        let target = ModelID.fileName(for: modelId)
        try POSIX.call("install", modelURL(modelId).path) { renameat(partialFD, name, fd, target) }
        try POSIX.sync(fd, path: url.path)
    }

    private static func errnoOf(_ error: any Error) -> Int32 {
        let ns = error as NSError
        if ns.domain == NSPOSIXErrorDomain { return Int32(ns.code) }
        if let underlying = ns.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return Int32(underlying.code)
        }
        switch ns.code {
        case 513, 257: return EACCES // NSFileWriteNoPermissionError, NSFileReadNoPermissionError
        case 640: return ENOSPC      // NSFileWriteOutOfSpaceError
        case 642: return EROFS       // NSFileWriteVolumeReadOnlyError
        default: return EIO
        }
    }
}

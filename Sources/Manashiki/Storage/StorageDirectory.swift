import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The directory models are installed in, opened safely.
///
/// Layout: see `StoreLayout`, which names every path under `.manashiki/`.
///
/// Every operation after opening is relative to directory descriptors, the storage directory
/// and `.manashiki` must not be symlinks, temporary files are created with `O_EXCL|O_NOFOLLOW`,
/// and installation is a `rename` (which replaces a symlink at `<id>.bin` rather than writing
/// through it), so no write can land outside the storage directory.
package final class StorageDirectory: @unchecked Sendable {
    /// The storage directory.
    package let url: URL
    /// The storage directory, opened (`DirectoryHandle`).
    package let root: DirectoryHandle
    /// `.manashiki`, opened.
    package let metadata: DirectoryHandle
    /// `.manashiki/partial`, opened.
    package let partials: DirectoryHandle
    /// Descriptor of the storage directory.
    package var fd: Int32 { root.fd }
    /// Descriptor of `.manashiki/partial`.
    package var partialFD: Int32 { partials.fd }

    /// The paths inside the storage directory.
    package let layout: StoreLayout

    /// Creates the directory if needed and opens it, removing the partials nothing can resume
    /// unless `removingAbandonedPartials` is false (a caller about to sweep them itself: one
    /// pass, so no lock this one took and released can still be held by a child spawned meanwhile).
    package init(url: URL, removingAbandonedPartials: Bool = true) throws {
        self.url = url
        layout = StoreLayout(directory: url)
        do {
            root = try DirectoryHandle.open(url, creating: true)
        } catch APIError.fileSystem(_, let path, let code) where code == ELOOP || code == ENOTDIR {
            throw APIError.fileSystem(operation: "use storage directory", path: path, code: code)
        }
        metadata = try root.directory(StoreLayout.metadataFolderName, creating: true)
        partials = try metadata.directory(StoreLayout.partialFolderName, creating: true)
        FileMetadata.excludeFromBackup(layout.metadataDirectory) // partials can be fetched again
        if removingAbandonedPartials { abandonedPartialsRemoved = removeAbandonedPartials(olderThan: nil) }
    }

    /// Partial files removed when the directory was opened (left by a killed process with
    /// nothing to resume them by; see `removeAbandonedPartials`).
    package private(set) var abandonedPartialsRemoved: [String] = []

    /// Whether `name` in the partial folder is still the file open as `fd`.
    func isStillNamed(_ name: String, _ fd: Int32) -> Bool {
        var open = stat(), named = stat()
        guard fstat(fd, &open) == 0, fstatat(partialFD, name, &named, AT_SYMLINK_NOFOLLOW) == 0 else { return false }
        return open.st_ino == named.st_ino && open.st_dev == named.st_dev && open.st_nlink > 0
    }

    /// The URL of `<modelId>.bin`.
    package func modelURL(_ modelId: String) -> URL {
        url.appendingPathComponent(ModelID.fileName(for: modelId), isDirectory: false)
    }

    /// The display path of a partial file (the folder's with an empty name).
    package func partialPath(_ name: String) -> String {
        name.isEmpty ? layout.partialDirectory.path : layout.partialFile(name).path
    }

    /// Creates a new, exclusively named and locked partial file for `modelId`.
    package func createPartial(for modelId: String) throws -> (name: String, fd: Int32) {
        for _ in 0..<8 {
            let name = StoreLayout.newPartialName(for: modelId)
            let fd = openat(partialFD, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
            if fd < 0 {
                if errno == EEXIST || errno == EINTR { continue }
                throw APIError.fileSystem(operation: "create a temporary file in", path: partialPath(""), code: errno)
            }
            // Held until the file is installed or removed, so cleaners know it is live. A
            // cleaner may have locked and unlinked the new file between openat and flock: then
            // the name no longer refers to it, and we start again with another name.
            guard FileLock.tryLock(fd), isStillNamed(name, fd) else {
                close(fd)
                continue
            }
            return (name, fd)
        }
        throw APIError.fileSystem(operation: "create a temporary file in", path: partialPath(""), code: EEXIST)
    }

    /// Removes a partial file and its sidecar (best effort).
    package func removePartial(_ name: String) {
        _ = unlinkat(partialFD, StoreLayout.sidecarName(of: name), 0)
        _ = unlinkat(partialFD, name, 0)
    }

    /// Atomically replaces `<modelId>.bin` with the partial file `name` (open as `file`):
    /// flushes it, renames it and flushes the directory (`DurableFile.commit`); the partial's
    /// sidecar, if it had one, goes with it.
    package func install(partial name: String, file: Int32, as modelId: String) throws {
        try DurableFile.commit(file, path: partialPath(name), named: name, in: partialFD,
                               as: ModelID.fileName(for: modelId), in: fd, directoryPath: url.path)
        _ = unlinkat(partialFD, StoreLayout.sidecarName(of: name), 0)
        // Every install path (downloads, background transfers, bundle and mirror copies) comes
        // through here, so every installed model is excluded from iCloud/iTunes backup (Apple:
        // set it each time the file is saved; a no-op off Apple platforms).
        FileMetadata.excludeFromBackup(modelURL(modelId))
    }
}

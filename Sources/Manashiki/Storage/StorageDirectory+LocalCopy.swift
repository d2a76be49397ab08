import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension StorageDirectory {
    /// Installs a local file (a bundle's blob) as `<modelId>.bin` with the same guarantees as a
    /// download: copied into a locked partial file and hashed in the same pass, compared with
    /// `sha256` and `size`, flushed, renamed over the target and the directory flushed. A file
    /// that does not verify is never installed, and the installed file is left untouched.
    /// - Parameter stop: asked between 4 MiB blocks; true ends the copy (`CancellationError`).
    /// - Throws: `APIError.integrityMismatch`, `.bodyTooShort`, `.bodyTooLong`, `.fileSystem`;
    ///   `CancellationError`.
    package func installCopy(of sourcePath: String, as modelId: String, sha256: String, size: Int64,
                             version: String?, stop: () -> Bool = { Task.isCancelled }) throws -> DownloadedModel {
        try ModelID.validate(modelId)
        for _ in 0..<8 {
            let name = StoreLayout.newPartialName(for: modelId)
            let copied: FileCopy.Copied
            do {
                copied = try FileCopy.copy(from: sourcePath, into: partialFD, name: name, displayPath: partialPath(name), maxSize: size, stop: stop)
            } catch APIError.fileSystem(_, _, let code) where code == EEXIST {
                continue
            }
            var installed = false
            defer {
                close(copied.fd)
                if !installed { removePartial(name) }
            }
            // Locked from its creation like every partial file, so a concurrent cleaner leaves it
            // alone; one that removed it before the lock was taken makes us start again.
            guard isStillNamed(name, copied.fd) else { continue }
            guard copied.size == size else { throw APIError.bodyTooShort(expected: size, received: copied.size) }
            guard copied.sha256 == sha256 else { throw APIError.integrityMismatch(expected: sha256, actual: copied.sha256) }
            let identity = FileIdentity.of(fd: copied.fd) // survives the flush and the rename
            try install(partial: name, file: copied.fd, as: modelId)
            installed = true
            var model = DownloadedModel(modelId: modelId, localURL: modelURL(modelId), sha256: copied.sha256, size: copied.size,
                                        version: version, verified: true)
            model.fileIdentity = identity
            return model
        }
        throw APIError.fileSystem(operation: "create a temporary file in", path: partialPath(""), code: EEXIST)
    }
}

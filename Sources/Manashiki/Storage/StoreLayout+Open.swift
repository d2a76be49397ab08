import Foundation

/// Opening the store and its private folder through `DirectoryHandle`: the one way any code
/// reaches a file under `<store>/.manashiki/` (never by a path a symbolic link could redirect).
extension StoreLayout {
    /// The store directory, opened (created with any missing parents when `creating`).
    /// - Throws: `APIError.fileSystem` (`ELOOP` when the store is a symbolic link).
    package func openStore(creating: Bool) throws -> DirectoryHandle {
        try DirectoryHandle.open(directory, creating: creating)
    }

    /// `<store>/.manashiki`, opened through the store's descriptor (both created when `creating`).
    /// - Throws: `APIError.fileSystem` (`ELOOP` when either is a symbolic link, `ENOENT` when
    ///   missing and not `creating`).
    package func openMetadata(creating: Bool) throws -> DirectoryHandle {
        try openStore(creating: creating).directory(Self.metadataFolderName, creating: creating)
    }

    /// `<store>/.manashiki/<name>`, opened (all three created when `creating`).
    package func openMetadataFolder(_ name: String, creating: Bool, permissions: mode_t = 0o755) throws -> DirectoryHandle {
        try openMetadata(creating: creating).directory(name, creating: creating, permissions: permissions)
    }
}

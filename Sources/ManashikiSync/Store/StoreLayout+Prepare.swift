import Foundation
import Manashiki

extension StoreLayout {
    /// Creates the store and metadata directories if needed.
    /// - Throws: `SyncFailure` when the store path (or a directory above it) is a file;
    ///   `APIError.fileSystem` when the directories cannot be created, or when the store or its
    ///   `.manashiki` is a symbolic link (`ELOOP`: never followed).
    public func prepare() throws { _ = try openPreparedMetadata() }

    /// `prepare()`, returning `.manashiki` opened (`DirectoryHandle`): what every writer in
    /// the private folder starts from.
    package func openPreparedMetadata() throws -> DirectoryHandle {
        do {
            return try openMetadata(creating: true)
        } catch let error as APIError {
            if case .fileSystem(_, _, let code) = error, code != ELOOP, let file = firstNonDirectory() {
                throw SyncFailure(kind: .terminal, message: file == directory.path
                    ? "the store \(directory.path) is a file, not a directory — point \(Remedy.storeDirectory) at a directory, or move the file away"
                    : "the store \(directory.path) cannot be created: \(file) is a file, not a directory — point \(Remedy.storeDirectory) elsewhere, or move the file away")
            }
            if case .fileSystem(let operation, let path, let code) = error, operation == "create directory", path == directory.path {
                throw APIError.fileSystem(operation: "create the store directory", path: path, code: code)
            }
            throw error
        }
    }

    /// The first existing path, from the store (or its metadata directory) upwards, that is not a directory.
    func firstNonDirectory() -> String? {
        var url = metadataDirectory
        while url.path != "/" && !url.path.isEmpty {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) {
                return isDirectory.boolValue ? nil : url.path
            }
            url = url.deletingLastPathComponent()
        }
        return nil
    }
}

import Foundation
import Manashiki

extension StoreLayout {
    /// Creates the store and metadata directories if needed.
    /// - Throws: `SyncFailure` when the store path (or a directory above it) is a file;
    ///   `APIError.fileSystem` when the directories cannot be created.
    public func prepare() throws {
        do {
            try FileManager.default.createDirectory(at: metadataDirectory, withIntermediateDirectories: true)
        } catch {
            if let file = firstNonDirectory() {
                throw SyncFailure(kind: .terminal, message: file == directory.path
                    ? "the store \(directory.path) is a file, not a directory — point \(Remedy.storeDirectory) at a directory, or move the file away"
                    : "the store \(directory.path) cannot be created: \(file) is a file, not a directory — point \(Remedy.storeDirectory) elsewhere, or move the file away")
            }
            throw APIError.fileSystem(operation: "create the store directory", path: directory.path, code: POSIX.errnoCode(of: error))
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

import Foundation
import Manashiki
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension StoreLayout {
    /// Creates the store and metadata directories if needed.
    /// - Throws: `SyncFailure` when the store path (or a directory above it) is a file, or the
    ///   store exists and this process cannot write it (`writeProblem()`);
    ///   `APIError.fileSystem` when the directories cannot be created, or when the store or its
    ///   `.manashiki` is a symbolic link (`ELOOP`: never followed).
    public func prepare() throws { _ = try openPreparedMetadata() }

    /// `prepare()`, returning `.manashiki` opened (`DirectoryHandle`): what every writer in
    /// the private folder starts from.
    package func openPreparedMetadata() throws -> DirectoryHandle {
        if let problem = writeProblem() { throw problem }
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

    /// Why this process cannot write the store: its directory or the metadata directory inside
    /// it is not writable (another user's, or a read-only file system), or, when the store does
    /// not exist yet, the nearest existing directory above it is not (so it cannot be created).
    /// Nil when it can. A plan checks it too, so `plan` says what `sync` would fail on.
    public func writeProblem() -> SyncFailure? {
        var candidates = [directory, metadataDirectory]
        if !Self.isDirectory(directory) {
            var above = directory.deletingLastPathComponent()
            while !Self.isDirectory(above) && above.path != "/" && !above.path.isEmpty { above = above.deletingLastPathComponent() }
            candidates = [above]
        }
        for url in candidates where Self.isDirectory(url) && access(url.path, W_OK) != 0 {
            let code = errno
            let error = APIError.fileSystem(operation: "write to the store", path: url.path, code: code)
            guard code != EROFS else {
                return SyncFailure(kind: .terminal, message: "the store \(directory.path) is on a read-only file system — point \(Remedy.storeDirectory) at a writable directory", apiError: error)
            }
            let user = Self.currentUser
            let reason = String(cString: strerror(code))
            guard url == candidates.first, url != directory else {
                return SyncFailure(kind: .terminal, message: "the store \(directory.path) exists but this user (\(user)) cannot write \(url.path): "
                    + "\(reason) — give \(user) write permission (for example `chown -R \(user) \(directory.path)`), "
                    + "run as the user that owns it, or point \(Remedy.storeDirectory) at a directory \(user) can write", apiError: error)
            }
            return SyncFailure(kind: .terminal, message: "the store \(directory.path) cannot be created: this user (\(user)) cannot write \(url.path): "
                + "\(reason) — create it for \(user) (for example `mkdir -p \(directory.path) && chown \(user) \(directory.path)`), "
                + "or point \(Remedy.storeDirectory) at a directory \(user) can write", apiError: error)
        }
        return nil
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// What `verify` and `status` say of a store directory that does not exist.
    package static func absentNote(_ directory: URL) -> String {
        "the store \(directory.path) does not exist yet (never synced, or deleted): run \(Remedy.sync) to install its models"
    }

    /// The effective user's name (its uid when it has none).
    static var currentUser: String {
        let uid = geteuid()
        guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
        return String(cString: name)
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

import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A directory opened without following a symbolic link, and the one way the package opens,
/// creates, reads, replaces, lists and removes files in a store (the SDK's storage directory
/// and the sync agent's store), its `.manashiki/` folder and everything under it, and a bundle
/// being exported: every name is one path component opened relative to this descriptor with
/// `O_NOFOLLOW`, after the checks, so a symbolic link planted anywhere below the root (a
/// `.manashiki` or a `lock` pointing elsewhere) is refused instead of followed, and nothing is
/// ever created outside.
///
/// ```swift
/// let store = try DirectoryHandle.open(layout.directory, creating: true)
/// let metadata = try store.directory(".manashiki", creating: true)
/// let lock = try FileLock(StoreLayout.lockFileName, in: metadata)
/// let state = try metadata.read("state.json", limit: 64 << 20)   // nil when absent
/// ```
/// The root itself is given by whoever configures it (the manifest's `store.directory`, the
/// app's `storageDirectory:`): the directories above it may be symbolic links (an
/// administrator's layout), the root's last component may not (it is where the package writes).
package final class DirectoryHandle: Sendable {
    /// The directory's descriptor (`O_DIRECTORY|O_NOFOLLOW`).
    package let fd: Int32
    /// Its path, for messages.
    package let path: String

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close(fd) }

    /// Opens the directory at `url`, creating it and any missing parents first when `creating`.
    /// - Throws: `APIError.fileSystem`: `ELOOP` when its last component is a symbolic link,
    ///   `ENOTDIR` when a file stands there, the system's error otherwise.
    package static func open(_ url: URL, creating: Bool) throws -> DirectoryHandle {
        let path = url.path
        if creating {
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                // Already there (maybe a symbolic link, refused below) or a real failure.
                if POSIX.lstatInfo(path) == nil {
                    throw APIError.fileSystem(operation: "create directory", path: path, code: POSIX.errnoCode(of: error))
                }
            }
        }
        return DirectoryHandle(fd: try openDirectory(path, in: AT_FDCWD, displayPath: path), path: path)
    }

    /// Opens the directory `name` inside this one, creating it (with `permissions`) when
    /// `creating`; a symbolic link there is refused.
    /// - Throws: `APIError.fileSystem` (`ELOOP` for a symbolic link, `ENOTDIR` for a file).
    package func directory(_ name: String, creating: Bool, permissions: mode_t = 0o755) throws -> DirectoryHandle {
        let display = displayPath(name)
        try Self.checkName(name, display)
        if creating, mkdirat(fd, name, permissions) != 0, errno != EEXIST {
            throw APIError.fileSystem(operation: "create directory", path: display, code: errno)
        }
        return DirectoryHandle(fd: try Self.openDirectory(name, in: fd, displayPath: display), path: display)
    }

    /// Opens the regular file `name` inside, never through a symbolic link and never blocking
    /// (a FIFO is refused, not waited on).
    /// - Parameters:
    ///   - flags: the access mode (`O_RDONLY`, `O_RDWR`…) and extra flags.
    ///   - permissions: creates the file with this mode when it does not exist.
    /// - Throws: `APIError.fileSystem` naming the path: `ELOOP` for a symbolic link, `EISDIR`
    ///   or `EINVAL` ("a FIFO, not a regular file") for anything but a regular file.
    package func openFile(_ name: String, flags: Int32 = O_RDONLY, creating permissions: mode_t? = nil) throws -> Int32 {
        let display = displayPath(name)
        try Self.checkName(name, display)
        do {
            return try RegularFile.open(name, in: fd, flags: flags, followingLinks: false, creating: permissions)
        } catch {
            throw error.apiError(permissions == nil ? "open" : "open or create", path: display, followingLinks: false)
        }
    }

    /// The bytes of the regular file `name`, or nil when there is none; at most `limit` bytes
    /// are ever read (checked on its size, then while reading).
    /// - Throws: `APIError.fileSystem`: `EFBIG` naming the size and the limit for a file over
    ///   it, `ELOOP` for a symbolic link, `EISDIR`/`EINVAL` for anything not a regular file.
    package func read(_ name: String, limit: Int) throws -> Data? {
        let file: Int32
        do { file = try openFile(name) } catch APIError.fileSystem(_, _, let code) where code == ENOENT { return nil }
        defer { close(file) }
        let display = displayPath(name)
        do {
            let (data, size) = try RegularFile.read(file, limit: limit)
            guard let data else { throw Self.tooLarge(display, size: size, limit: limit) }
            return data
        } catch let error as RegularFile.OpenError {
            throw error.apiError("read", path: display, followingLinks: false)
        }
    }

    /// Replaces `name` durably with `data` (`DurableFile.write`: a temporary file created with
    /// `O_EXCL|O_NOFOLLOW`, flushed, renamed over it, the directory flushed).
    /// - Throws: `APIError.fileSystem`.
    package func replace(_ name: String, with data: Data, permissions: mode_t = 0o644) throws {
        try Self.checkName(name, displayPath(name))
        try DurableFile.write(data, as: name, in: fd, directoryPath: path, permissions: permissions)
    }

    /// Removes the file `name` (never a directory); returns 0 or the `errno`.
    @discardableResult
    package func remove(_ name: String) -> Int32 {
        guard Self.isComponent(name) else { return EINVAL }
        return unlinkat(fd, name, 0) == 0 ? 0 : errno
    }

    /// `fstatat` of `name` without following a symbolic link, or nil.
    package func info(_ name: String) -> stat? {
        guard Self.isComponent(name) else { return nil }
        var info = stat()
        return fstatat(fd, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info : nil
    }

    /// The names in the directory (without `.` and `..`), read through the descriptor.
    package func names() -> [String] {
        let copy = dup(fd)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            return []
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The path of `name` inside, for messages.
    package func displayPath(_ name: String) -> String { path.hasSuffix("/") ? path + name : path + "/" + name }

    // MARK: Helpers

    /// Whether `name` is one path component this helper may open (not empty, no `/`, no NUL,
    /// not `.` or `..`).
    static func isComponent(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.utf8.contains(0x2F) && !name.utf8.contains(0)
    }

    private static func checkName(_ name: String, _ display: String) throws {
        guard isComponent(name) else { throw APIError.fileSystem(operation: "open (not a single file name)", path: display, code: EINVAL) }
    }

    /// `openat(O_DIRECTORY|O_NOFOLLOW)`; a symbolic link there is `ELOOP` on every platform
    /// (Linux answers `ENOTDIR` for one when `O_DIRECTORY` is given).
    private static func openDirectory(_ name: String, in parent: Int32, displayPath: String) throws -> Int32 {
        var fd: Int32
        repeat { fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd < 0 else { return fd }
        var code = errno
        var info = stat()
        if code == ENOTDIR || code == ELOOP, fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
            code = (info.st_mode & S_IFMT) == S_IFLNK ? ELOOP : ENOTDIR
        }
        throw APIError.fileSystem(operation: code == ELOOP ? "use directory (a symbolic link, which is never followed)" : "open directory",
                                  path: displayPath, code: code)
    }

    /// `EFBIG` naming the size and the limit.
    static func tooLarge(_ display: String, size: Int64, limit: Int) -> APIError {
        .fileSystem(operation: "read (\(ByteSize.text(size)), over the \(ByteSize.text(Int64(limit))) this file may hold)", path: display, code: EFBIG)
    }
}

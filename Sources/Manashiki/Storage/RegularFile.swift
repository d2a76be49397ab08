import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way the package opens a file someone else may have put in place (a bundle's blob or
/// index, a store's state file, a lock or usage file, a manifest, a key): non-blocking, so a
/// FIFO or a device cannot hang the `open` itself, and refused unless it is a regular file
/// before a byte is read or written. The descriptor returned is blocking again (`O_NONBLOCK`
/// means nothing for a regular file, but it is cleared so no later code sees it).
///
/// ```swift
/// let fd = try RegularFile.open(path)                       // follows symbolic links
/// let fd = try RegularFile.open(name, in: directoryFD, followingLinks: false, creating: 0o644)
/// ```
package enum RegularFile {
    /// Why a file was not opened.
    package enum OpenError: Error, Sendable, Hashable {
        /// The system call failed with this `errno` (`ENOENT`, `EACCES`, `ELOOP` for a symbolic
        /// link that must not be followed…).
        case system(Int32)
        /// Something other than a regular file stands there: what it is (`a FIFO`).
        case notRegular(String)

        /// An `errno` for layers that speak only errno: the system's, or `EINVAL` (`EISDIR` for a
        /// directory) when the file is not regular.
        package var code: Int32 {
            switch self {
            case .system(let code): return code
            case .notRegular(let kind): return kind == RegularFile.kind(S_IFDIR) ? EISDIR : EINVAL
            }
        }

        /// `a FIFO, not a regular file` or the system's words for the errno.
        package var reason: String {
            switch self {
            case .system(let code): return String(cString: strerror(code))
            case .notRegular(let kind): return "\(kind), not a regular file"
            }
        }
    }

    /// What a file of this `st_mode` is, for messages: `a directory`, `a FIFO`, `a socket`,
    /// `a device`, `a symbolic link`, `a regular file`.
    package static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a directory"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "not a regular file"
        }
    }

    /// Opens `path` (relative to `directory` unless absolute) non-blocking, then refuses it
    /// unless it is a regular file.
    /// - Parameters:
    ///   - flags: the access mode and extra flags (`O_RDONLY` by default); `O_CLOEXEC` and
    ///     `O_NONBLOCK` are always added, `O_NOFOLLOW` unless `followingLinks`.
    ///   - followingLinks: false refuses a symbolic link at the last component (`ELOOP`).
    ///   - permissions: creates the file with this mode when it does not exist (`O_CREAT`).
    /// - Throws: `OpenError`.
    package static func open(_ path: String, in directory: Int32 = AT_FDCWD, flags: Int32 = O_RDONLY, followingLinks: Bool = true,
                             creating permissions: mode_t? = nil) throws(OpenError) -> Int32 {
        var all = flags | O_CLOEXEC | O_NONBLOCK
        if !followingLinks { all |= O_NOFOLLOW }
        if permissions != nil { all |= O_CREAT }
        var fd: Int32
        repeat {
            fd = permissions.map { openat(directory, path, all, $0) } ?? openat(directory, path, all)
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw .system(errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw .system(code)
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw .notRegular(kind(info.st_mode))
        }
        let status = fcntl(fd, F_GETFL)
        if status >= 0 { _ = fcntl(fd, F_SETFL, status & ~O_NONBLOCK) }
        return fd
    }

    /// Reads the open regular file `fd` from its start to its end, refusing it as soon as it is
    /// (or grows) larger than `limit` bytes: checked on its size first, then while reading, so
    /// a file that grows under the read costs at most `limit + 1` bytes of memory.
    /// - Returns: the bytes, or nil with `size` set to what was found when over the limit.
    package static func read(_ fd: Int32, limit: Int) throws(OpenError) -> (data: Data?, size: Int64) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system(errno) }
        if Int64(info.st_size) > Int64(limit) { return (nil, Int64(info.st_size)) }
        var data = Data(count: Int(info.st_size) + 1)
        var count = 0
        while true {
            if count == data.count {
                guard count <= limit else { return (nil, Int64(count)) }
                data.count = min(max(count * 2, 4096), limit + 1)
            }
            let n = data.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + count, $0.count - count, off_t(count)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .system(errno)
            }
            if n == 0 { break }
            count += n
        }
        guard count <= limit else { return (nil, Int64(count)) }
        data.count = count
        return (data, Int64(count))
    }
}

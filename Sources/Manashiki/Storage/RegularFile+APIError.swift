import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension RegularFile.OpenError {
    /// The SDK's error for a file that could not be opened for `operation`:
    /// `Could not read (a FIFO, not a regular file) PATH`, `Could not open (a symbolic link,
    /// which is never followed) PATH`, or the system's error.
    /// - Parameter followingLinks: whether the open followed symbolic links (if not, `ELOOP`
    ///   means the file is one).
    package func apiError(_ operation: String, path: String, followingLinks: Bool) -> APIError {
        switch self {
        case .notRegular(let kind):
            return .fileSystem(operation: "\(operation) (\(kind), not a regular file)", path: path, code: code)
        case .system(let errno) where (errno == ELOOP || errno == EMLINK) && !followingLinks:
            return .fileSystem(operation: "\(operation) (a symbolic link, which is never followed)", path: path, code: ELOOP)
        case .system(let errno):
            return .fileSystem(operation: operation, path: path, code: errno)
        }
    }
}

extension RegularFile {
    /// The bytes of the regular file at `path` (symbolic links followed: for files a person
    /// names, a manifest or a lock file), opened non-blocking, at most `limit` bytes read.
    /// - Throws: `APIError.fileSystem`: `ENOENT` and the like, `EINVAL`/`EISDIR` with "(a FIFO,
    ///   not a regular file)", `EFBIG` naming the size and the limit.
    package static func contents(_ path: String, limit: Int) throws -> Data {
        let fd: Int32
        do { fd = try open(path) } catch { throw error.apiError("read", path: path, followingLinks: true) }
        defer { close(fd) }
        let read: (data: Data?, size: Int64)
        do { read = try self.read(fd, limit: limit) } catch { throw error.apiError("read", path: path, followingLinks: true) }
        guard let data = read.data else { throw DirectoryHandle.tooLarge(path, size: read.size, limit: limit) }
        return data
    }
}

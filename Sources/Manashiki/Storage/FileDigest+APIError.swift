import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileDigest {
    /// Runs a `FileDigest` read of the file at `path`, its failure as `APIError.fileSystem`
    /// ("Could not read PATH: …").
    package static func hashing<T>(_ path: String, _ body: () throws(ReadError) -> T) throws(APIError) -> T {
        do { return try body() } catch { throw APIError.fileSystem(operation: "read", path: path, code: error.code) }
    }

    /// The digest and size of the regular file at `url` (opened non-blocking and refused
    /// unless regular, `RegularFile`: a FIFO cannot hang the hash).
    /// - Throws: `APIError.fileSystem` when it cannot be opened or read.
    package static func sha256(of url: URL) throws(APIError) -> (sha256: String, size: Int64) {
        let fd: Int32
        do { fd = try RegularFile.open(url.path) } catch { throw error.apiError("read", path: url.path, followingLinks: true) }
        defer { close(fd) }
        let hasher = SHA256Hasher()
        // A cancelled run (SIGTERM) stops between 4 MiB pieces (ECANCELED).
        let size = try hashing(url.path) { () throws(ReadError) in try hash(fd, into: hasher, stop: { Task.isCancelled }) }
        return (hasher.finalize().hex, size)
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way the package hashes bytes already on disk (an installed model, a kept partial,
/// a bundle's blob, a registry's artifact): `pread` in 4 MiB pieces into a `SHA256Hasher`,
/// never a whole file in memory. Errors carry the `errno`; each layer words them
/// (`APIError.fileSystem` in the SDK).
///
/// ```swift
/// let (sha256, size) = try FileDigest.sha256(ofFileAt: path)
/// ```
package enum FileDigest {
    /// The read size.
    package static let chunkSize = 4 << 20

    /// A file that could not be opened or read: its `errno`.
    package struct ReadError: Error, Sendable, Hashable {
        /// The `errno`.
        package var code: Int32
    }

    /// Feeds `hasher` the bytes of `fd` from `offset` until the end of the file, or until
    /// `limit` bytes when given; returns how many it read.
    /// - Parameter stop: asked before each piece; true ends the read with `ECANCELED` (a
    ///   background install whose time ran out).
    package static func hash(_ fd: Int32, into hasher: SHA256Hasher, from offset: Int64 = 0, limit: Int64? = nil,
                             stop: () -> Bool = { false }) throws(ReadError) -> Int64 {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 4096)
        defer { buffer.deallocate() }
        var read: Int64 = 0
        while limit.map({ read < $0 }) ?? true {
            if stop() { throw ReadError(code: ECANCELED) }
            let want = Int(min(Int64(chunkSize), limit.map { $0 - read } ?? Int64(chunkSize)))
            let n = pread(fd, buffer.baseAddress, want, off_t(offset + read))
            if n < 0 {
                if errno == EINTR { continue }
                throw ReadError(code: errno)
            }
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            read += Int64(n)
        }
        return read
    }

    /// The digest (64 lowercase hex) and size of the file at `path`.
    package static func sha256(ofFileAt path: String) throws(ReadError) -> (sha256: String, size: Int64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ReadError(code: errno) }
        defer { close(fd) }
        let hasher = SHA256Hasher()
        let size = try hash(fd, into: hasher)
        return (hasher.finalize().hex, size)
    }
}

import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Copies a local file into a new file while hashing it: the one place where the platform's
/// fast copy is chosen (`copy_file_range` on Linux, `fclonefileat` on Darwin) and the bytes
/// that land in the new file are hashed, so what was hashed is what will be installed.
///
/// Used for bundle directories (a USB disk, an image layer) in both directions: into a
/// store's partial folder and into a bundle's `blobs/sha256/`.
package enum FileCopy {
    /// A copy that has been made and hashed, still open: the caller flushes, renames and closes.
    package struct Copied: Sendable {
        /// The new file, open for reading and writing.
        package var fd: Int32
        /// SHA-256 of the new file's bytes (64 lowercase hex).
        package var sha256: String
        /// Its size in bytes.
        package var size: Int64
        /// How it was copied: `copy_file_range`, `clonefile` or `read/write`.
        package var method: String
    }

    /// The read size for hashing and the plain copy.
    static let chunkSize = 4 << 20

    /// Copies the regular file at `sourcePath` into a new file `name` (created with
    /// `O_EXCL|O_NOFOLLOW` and `flock`-ed at once, so partial-file cleaners leave it alone) in
    /// the directory open as `directoryFD`, hashing the new file's bytes.
    /// Stops with `APIError.bodyTooLong` as soon as more than `maxSize` bytes are seen, and with
    /// `CancellationError` when `stop` says so between blocks (a cancelled run: by default the
    /// current task's cancellation; a copy run off the cooperative pool passes its own). On any
    /// error the new file is removed.
    /// - Throws: `APIError.fileSystem` naming the path; `APIError.bodyTooLong`; `CancellationError`.
    package static func copy(from sourcePath: String, into directoryFD: Int32, name: String, displayPath: String,
                             maxSize: Int64?, stop: () -> Bool = { Task.isCancelled }) throws -> Copied {
        // Non-blocking and refused unless regular before a byte is read: a FIFO or a device
        // planted as a blob would otherwise hang the open for ever.
        let source: Int32
        do { source = try RegularFile.open(sourcePath, followingLinks: false) } catch {
            throw error.apiError("read", path: sourcePath, followingLinks: false)
        }
        defer { close(source) }
        var info = stat()
        try POSIX.call("inspect", sourcePath) { fstat(source, &info) }
        if let maxSize, Int64(info.st_size) > maxSize { throw APIError.bodyTooLong(expected: maxSize) }
        var created = false
        var fd: Int32 = -1
        do {
            // A copy-on-write clone where the platform and file system have one (APFS).
            if FileClone.clone(source, into: directoryFD, name: name) {
                created = true
                fd = try open(name, in: directoryFD, flags: O_RDWR, creating: nil, displayPath: displayPath)
                _ = FileLock.tryLock(fd)
                let (sha, size) = try hash(fd, path: displayPath, maxSize: maxSize, stop: stop)
                return Copied(fd: fd, sha256: sha, size: size, method: "clonefile")
            }
            fd = try open(name, in: directoryFD, flags: O_RDWR | O_EXCL, creating: 0o644, displayPath: displayPath)
            created = true
            _ = FileLock.tryLock(fd)
            let (sha, size, method) = try copyAndHash(source, sourcePath: sourcePath, to: fd, path: displayPath, maxSize: maxSize, stop: stop)
            return Copied(fd: fd, sha256: sha, size: size, method: method)
        } catch {
            if fd >= 0 { close(fd) }
            if created { _ = unlinkat(directoryFD, name, 0) }
            throw error
        }
    }

    /// Opens (or creates, `O_EXCL`) the new file `name` in `directoryFD`, never through a
    /// symbolic link (`RegularFile`, as `DirectoryHandle.openFile` does).
    private static func open(_ name: String, in directoryFD: Int32, flags: Int32, creating permissions: mode_t?,
                             displayPath: String) throws -> Int32 {
        do {
            return try RegularFile.open(name, in: directoryFD, flags: flags, followingLinks: false, creating: permissions)
        } catch {
            throw error.apiError(permissions == nil ? "open" : "create", path: displayPath, followingLinks: false)
        }
    }

    /// Copies block by block; each block is copied, then read back from the new file and
    /// hashed, so the digest covers exactly the bytes installed (a source changing under the
    /// copy cannot slip in unhashed bytes).
    private static func copyAndHash(_ source: Int32, sourcePath: String, to fd: Int32, path: String,
                                    maxSize: Int64?, stop: () -> Bool) throws -> (String, Int64, String) {
        let hasher = SHA256Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 4096)
        defer { buffer.deallocate() }
        var offset: Int64 = 0
        var kernelCopy = true
        while true {
            // A cancelled run (SIGTERM) stops between blocks; the new file is removed.
            if stop() { throw CancellationError() }
            var n = 0
            if kernelCopy {
                var inOffset = offset, outOffset = offset
                let copied = kernelCopyChunk(source, &inOffset, fd, &outOffset)
                if copied < 0 {
                    let code = errno
                    if code == EINTR { continue }
                    // Not supported here (another file system, an old kernel): copy in user space.
                    guard [ENOSYS, EXDEV, EINVAL, EOPNOTSUPP, ENOTSUP, EBADF, EPERM].contains(code) else {
                        throw APIError.fileSystem(operation: "copy", path: path, code: code)
                    }
                    kernelCopy = false
                    continue
                }
                if copied == 0 { break }
                n = try readFully(fd, buffer, at: offset, count: copied, path: path)
                guard n == copied else { throw APIError.fileSystem(operation: "read back", path: path, code: EIO) }
            } else {
                n = try readFully(source, buffer, at: offset, count: chunkSize, path: sourcePath)
                if n == 0 { break }
                _ = lseek(fd, off_t(offset), SEEK_SET)
                try POSIX.writeAll(fd, UnsafeRawBufferPointer(rebasing: buffer[0..<n]), path: path)
            }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += Int64(n)
            if let maxSize, offset > maxSize { throw APIError.bodyTooLong(expected: maxSize) }
        }
        return (hasher.finalize().hex, offset, kernelCopy ? "copy_file_range" : "read/write")
    }

    /// One in-kernel copy of up to a chunk, or -1 with errno (ENOSYS where there is none).
    private static func kernelCopyChunk(_ source: Int32, _ inOffset: inout Int64, _ fd: Int32, _ outOffset: inout Int64) -> Int {
        KernelFileCalls.copyFileRange(source, &inOffset, fd, &outOffset, length: Int64(chunkSize))
    }

    /// Hashes a whole file (a clone, a finished background download) from the start
    /// (`FileDigest`), reading at most one byte past `maxSize`.
    /// - Parameter stop: asked before each 4 MiB block; true stops the hash with
    ///   `CancellationError` (a cancelled task by default; a background install whose time ran
    ///   out, see `BackgroundInstall`).
    static func hash(_ fd: Int32, path: String, maxSize: Int64?, stop: () -> Bool = { Task.isCancelled }) throws -> (String, Int64) {
        let hasher = SHA256Hasher()
        let size: Int64
        do {
            size = try FileDigest.hash(fd, into: hasher, limit: maxSize.map { $0 + 1 }, stop: stop)
        } catch where error.code == ECANCELED {
            throw CancellationError()
        } catch {
            throw APIError.fileSystem(operation: "read", path: path, code: error.code)
        }
        if let maxSize, size > maxSize { throw APIError.bodyTooLong(expected: maxSize) }
        return (hasher.finalize().hex, size)
    }

    /// `pread` until `count` bytes or the end of the file (also the bucket export's reads).
    package static func readFully(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer, at offset: Int64, count: Int, path: String) throws -> Int {
        var total = 0
        while total < count {
            let n = pread(fd, buffer.baseAddress! + total, count - total, off_t(offset) + off_t(total))
            if n < 0 {
                if errno == EINTR { continue }
                throw APIError.fileSystem(operation: "read", path: path, code: errno)
            }
            if n == 0 { break }
            total += n
        }
        return total
    }
}

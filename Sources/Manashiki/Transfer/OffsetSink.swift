import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes received bytes into the partial file at their offset in the artifact (`pwrite`), on
/// an I/O thread off the cooperative pool, so parts of one artifact land in place whatever
/// order they arrive in.
final class OffsetSink: Sendable {
    /// The open partial file.
    let fd: Int32
    /// Its path, for errors.
    let path: String

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    /// Where blocking writes run, off the cooperative thread pool.
    static let ioQueue = DispatchQueue(label: "manashiki.artifact-writes", qos: .utility, attributes: .concurrent)

    /// Bytes after which the kernel is asked to start writing back, so the final fsync is short.
    static let writebackInterval: Int64 = 8 << 20

    /// Writes `bytes` at `offset` on the I/O thread, with one `pwrite` (the transport's chunk,
    /// 1 MiB on a fast link), while `alongside` runs here (the hash, when these bytes are next
    /// in order), so both cores work; returns when both are done (the bytes stay alive until
    /// then), with the CPU nanoseconds the write and `alongside` used.
    @discardableResult
    func write(_ bytes: BytesRef, at offset: Int64, alongside: () -> Void = {}) async throws -> UInt64 {
        let fd = self.fd, path = self.path
        let write = IOCompletion()
        let writeCPU = Locked<UInt64>(0)
        Self.ioQueue.async {
            write.finish {
                var cpu: UInt64 = 0
                defer { writeCPU.withLock { $0 = cpu } }
                try ThreadCPUTime.measure(&cpu) { try bytes.withBytes { try POSIX.writeAll(fd, $0, at: offset, path: path) } }
            }
        }
        var cpu: UInt64 = 0
        ThreadCPUTime.measure(&cpu, alongside)
        try await write.value()
        return cpu + writeCPU.current
    }

    /// Asks the kernel to start writing `length` bytes from `offset` back to disk.
    func startWriteback(from offset: Int64, length: Int64) {
        POSIX.startWriteback(fd, from: offset, length: length)
    }

    /// Cuts the file to `length` bytes (0: discards everything).
    func truncate(to length: Int64) throws {
        _ = try POSIX.call("truncate", path) { ftruncate(fd, off_t(length)) }
    }
}

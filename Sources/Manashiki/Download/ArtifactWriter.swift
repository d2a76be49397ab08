import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Receives an artifact's body: hashes it and writes it to the partial file in 1 MiB blocks
/// (one copy, one `write` and one hash update per MiB), enforcing the declared size.
final class ArtifactWriter: HTTPBodyConsumer, @unchecked Sendable {
    static let blockSize = 1 << 20
    /// Chunks at least this large are consumed in place rather than copied into the block.
    static let directMinimum = 256 << 10

    private let fd: Int32
    private let path: String
    private let expectedSize: Int64?
    private let progress: (@Sendable (Int64, Int64?) -> Void)?
    private var hasher = SHA256Hasher()
    private let block: UnsafeMutableRawBufferPointer
    private var blockCount = 0

    /// Whether `restart()` discarded bytes at least once.
    private(set) var restarted = false

    /// Bytes hashed and written so far (a valid prefix of the artifact).
    private(set) var written: Int64 = 0
    /// The artifact's total size as the storage host declared it in this attempt, if it did.
    private(set) var declaredTotal: Int64?

    /// Uptime (nanoseconds) after which the transfer is stopped, if any.
    private let deadline: UInt64?

    init(fd: Int32, path: String, expectedSize: Int64?, deadline: UInt64? = nil, progress: (@Sendable (Int64, Int64?) -> Void)?) {
        self.fd = fd
        self.path = path
        self.expectedSize = expectedSize
        self.deadline = deadline
        self.progress = progress
        block = .allocate(byteCount: Self.blockSize, alignment: 4096)
    }

    deinit { block.deallocate() }

    /// Bytes received, including those not yet flushed.
    var received: Int64 { written + Int64(blockCount) }

    func receive(head: HTTPResponseHead) async throws {
        switch head.status {
        case 200:
            if received > 0 { try restart() }
            declaredTotal = head.contentLength
            try checkDeclared(head.contentLength)
        case 206:
            guard let range = ContentRange(head.headers["Content-Range"]), range.start == received else {
                throw StorageSignal.restartFromZero
            }
            if let total = range.total {
                if let expectedSize, total > expectedSize { throw APIError.bodyTooLong(expected: expectedSize) }
                if let expectedSize, total < expectedSize { throw APIError.bodyTooShort(expected: expectedSize, received: total) }
                declaredTotal = total
            } else {
                declaredTotal = nil
            }
        case 416:
            throw StorageSignal.rangeNotSatisfiable
        case 301, 302, 303, 307, 308:
            guard let location = head.headers["Location"], let url = URL(string: location) else {
                throw APIError.unexpectedStatus(status: head.status, message: "the storage host redirected without a usable Location")
            }
            throw StorageSignal.redirect(url)
        case 403, 410:
            throw StorageSignal.expired(status: head.status)
        case 429:
            throw APIError.rateLimited(retryAfter: RetryAfter.seconds(from: head.headers["Retry-After"]))
        case 500..<600:
            throw APIError.server(status: head.status, message: "from the storage host")
        default:
            throw APIError.unexpectedStatus(status: head.status, message: "from the storage host")
        }
    }

    func receive(chunk: Data) async throws {
        if let expectedSize, received + Int64(chunk.count) > expectedSize {
            throw APIError.bodyTooLong(expected: expectedSize)
        }
        if let deadline, DispatchTime.now().uptimeNanoseconds >= deadline { throw StorageSignal.deadlinePassed }
        var offset = 0
        // A large chunk (the Linux transport hands over 1 MiB buffers) is hashed and written
        // straight from the transport's buffer, with no copy; a partly filled block before it
        // (a slow link's short chunk) is written first, so one short chunk never makes every
        // later byte go through the block.
        if chunk.count >= Self.directMinimum {
            try await flush()
            try await consume(BytesRef(chunk, range: 0..<chunk.count))
            offset = chunk.count
        }
        while offset < chunk.count {
            if blockCount == 0 { blockStarted = DispatchTime.now().uptimeNanoseconds }
            let n = min(chunk.count - offset, Self.blockSize - blockCount)
            chunk.withUnsafeBytes { src in
                (block.baseAddress! + blockCount).copyMemory(from: src.baseAddress! + offset, byteCount: n)
            }
            blockCount += n
            offset += n
            if blockCount == Self.blockSize { try await flush() }
        }
        // On a slow link a block takes long to fill: write what has waited a second, so an
        // interruption (kill -9, a crash) costs at most about a second of transfer, and report
        // what has arrived at least every 250 ms, so small models and slow networks show progress.
        guard blockCount > 0 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        if now - blockStarted >= Self.maxBlockAge {
            try await flush() // reports progress itself
        } else if now - lastProgress >= Self.progressInterval {
            lastProgress = now
            progress?(received, declaredTotal)
        }
    }

    /// How long received bytes may wait in the block before they are written, in nanoseconds.
    static let maxBlockAge: UInt64 = 1_000_000_000
    /// When the first byte now in the block arrived (uptime nanoseconds).
    private var blockStarted: UInt64 = 0

    /// The longest gap between progress reports while bytes arrive, in nanoseconds.
    static let progressInterval: UInt64 = 250_000_000
    private var lastProgress: UInt64 = DispatchTime.now().uptimeNanoseconds

    /// Hashes and writes the buffered block, then reports progress.
    func flush() async throws {
        guard blockCount > 0 else { return }
        let bytes = BytesRef(block: UnsafeRawBufferPointer(start: block.baseAddress, count: blockCount))
        blockCount = 0
        try await consume(bytes)
    }

    /// Hashes and writes bytes that follow the valid prefix: the write runs on an I/O thread
    /// while the same bytes are hashed here, so both cores work; the bytes stay alive (and the
    /// next chunk waits) until both are done.
    private func consume(_ bytes: BytesRef) async throws {
        let fd = self.fd, path = self.path
        let write = IOCompletion()
        Self.ioQueue.async {
            write.finish {
                try bytes.withBytes { all in
                    var offset = 0
                    while offset < all.count {
                        let n = min(Self.writeSize, all.count - offset)
                        try POSIX.writeAll(fd, UnsafeRawBufferPointer(rebasing: all[offset..<(offset + n)]), path: path)
                        offset += n
                    }
                }
            }
        }
        bytes.withBytes { hasher.update($0) }
        try await write.value()
        written += Int64(bytes.count)
        if written - writebackStarted >= Self.writebackInterval {
            POSIX.startWriteback(fd, from: writebackStarted, length: written - writebackStarted)
            writebackStarted = written
        }
        lastProgress = DispatchTime.now().uptimeNanoseconds
        progress?(written, declaredTotal)
    }

    /// The largest single `write(2)`. Measured with `dd` into ext4 after `drop_caches` (Linux
    /// 6.18, 1 GiB, three runs each): 16–64 KiB writes cost 0.47–0.61 s of system time, 128 KiB
    /// 0.69–1.90 s, 256 KiB 1.05–2.58 s, 1 MiB 1.28–1.52 s (larger writes make the page cache
    /// allocate large folios, which is expensive here); on tmpfs every size costs the same.
    static let writeSize = 64 << 10

    /// Where blocking writes run, off the cooperative thread pool.
    static let ioQueue = DispatchQueue(label: "manashiki.artifact-writes", qos: .utility, attributes: .concurrent)

    /// Bytes after which the kernel is asked to start writing back, so the final fsync is short.
    static let writebackInterval: Int64 = 8 << 20
    private var writebackStarted: Int64 = 0

    /// Finishes the digest. Call once, after the last flush.
    func finalize() -> ArtifactDigest { hasher.finalize() }

    /// Discards everything written so far.
    func restart() throws {
        restarted = true
        blockCount = 0
        written = 0
        writebackStarted = 0
        hasher = SHA256Hasher()
        try POSIX.call("truncate", path) { ftruncate(fd, 0) }
        _ = lseek(fd, 0, SEEK_SET)
    }

    /// Continues after the first `length` bytes already in the file (a kept partial): hashes
    /// them again from disk (nothing stored about them is trusted) and drops anything after
    /// them. The caller reports them as progress.
    func adoptPrefix(_ length: Int64) throws {
        blockCount = 0
        hasher = SHA256Hasher()
        var offset: Int64 = 0
        while offset < length {
            let want = Int(min(Int64(Self.blockSize), length - offset))
            let n = pread(fd, block.baseAddress, want, off_t(offset))
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw APIError.fileSystem(operation: "read", path: path, code: errno) }
            if n == 0 { break }
            hasher.update(UnsafeRawBufferPointer(start: block.baseAddress, count: n))
            offset += Int64(n)
        }
        try POSIX.call("truncate", path) { ftruncate(fd, off_t(offset)) }
        _ = lseek(fd, off_t(offset), SEEK_SET)
        written = offset
        writebackStarted = offset
    }

    private func checkDeclared(_ length: Int64?) throws {
        guard let expectedSize, let length else { return }
        if length > expectedSize { throw APIError.bodyTooLong(expected: expectedSize) }
        if length < expectedSize { throw APIError.bodyTooShort(expected: expectedSize, received: length) }
    }
}

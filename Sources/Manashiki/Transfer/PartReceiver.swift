import Foundation
import ManashikiCore

/// Receives the answer to one request of one part: checks its head (`ResponseValidator`,
/// the object's identity), then writes the body in place at its offset (`OffsetSink`): large
/// chunks straight from the transport's buffer, short ones gathered in a 256 KiB block, hashing it in the same pass when it is next in order (`InOrderHasher`),
/// and stops at the part's end, which shrinks when another connection takes the rest.
final class PartReceiver: HTTPBodyConsumer, @unchecked Sendable {
    /// The block short chunks (a slow link's) are gathered in: small, since every connection
    /// of every transfer may hold one (large chunks never go through it).
    static let blockSize = 256 << 10
    /// Chunks at least this large are consumed in place rather than copied into the block.
    static let directMinimum = 128 << 10
    /// How long received bytes may wait in the block before they are written, in nanoseconds.
    static let maxBlockAge: UInt64 = 1_000_000_000
    /// The longest gap between progress reports while bytes arrive, in nanoseconds.
    static let progressInterval: UInt64 = 250_000_000

    private let context: TransferContext
    /// The part being received (replaced when the transfer starts over as one stream).
    private(set) var part: PartScheduler.Part
    /// Whether the request carried a `Range` header.
    private let ranged: Bool
    /// The offset of the next byte to write (bytes before it are on disk).
    private(set) var written: Int64
    /// The artifact's total size as the storage host declared it in this answer, if it did.
    private(set) var declaredTotal: Int64?

    private var block: UnsafeMutableRawBufferPointer?
    private var blockCount = 0
    private var blockStarted: UInt64 = 0
    private var lastProgress: UInt64 = DispatchTime.now().uptimeNanoseconds
    private var writebackStarted: Int64

    init(_ context: TransferContext, part: PartScheduler.Part, from offset: Int64, ranged: Bool) {
        self.context = context
        self.part = part
        self.ranged = ranged
        written = offset
        writebackStarted = offset
    }

    deinit { block?.deallocate() }

    /// The offset after the last byte received, including those not yet written.
    var received: Int64 { written + Int64(blockCount) }

    func receive(head: HTTPResponseHead) async throws {
        let (body, identity) = try context.validator.check(head, start: written, ranged: ranged)
        switch body {
        case .fromRequestedOffset(let total):
            declaredTotal = total
            if ranged { context.rangesConfirmed() }
        case .wholeObject(let total):
            // The host ignored Range: continue with this answer as one stream from byte 0
            // when this is the only part, else leave the bytes to the parts that got ranges.
            if written > 0 || part.end != context.scheduler.total {
                guard let whole = try await context.startOver(from: part.id) else {
                    context.rangeIgnored()
                    throw StorageSignal.rangeIgnored
                }
                part = whole
                written = 0
                writebackStarted = 0
            }
            context.rangeIgnored()
            declaredTotal = total
        }
        try context.accept(identity)
        context.progress.declare(total: declaredTotal)
    }

    func receive(chunk: Data) async throws {
        if let expectedSize = context.validator.expectedSize, received + Int64(chunk.count) > expectedSize {
            throw APIError.bodyTooLong(expected: expectedSize)
        }
        if let deadline = context.deadline, deadline.hasPassed { throw StorageSignal.deadlinePassed }
        // A part whose end moved (another connection took the rest) keeps only its bytes.
        var count = chunk.count
        let end = context.scheduler.end(of: part.id)
        if let end, received + Int64(count) > end { count = Int(max(0, end - received)) }
        try await take(chunk, count: count)
        if count < chunk.count || (end.map { received >= $0 && $0 != part.end } ?? false) {
            try await flush()
            throw StorageSignal.partEnded
        }
    }

    private func take(_ chunk: Data, count: Int) async throws {
        var offset = 0
        // A large chunk (the Linux transport hands over 512 KiB buffers) is hashed and written
        // straight from the transport's buffer, with no copy; a partly filled block before it
        // (a slow link's short chunk) is written first, so one short chunk never makes every
        // later byte go through the block.
        if count >= Self.directMinimum {
            try await flush()
            try await consume(BytesRef(chunk, range: 0..<count))
            offset = count
        }
        while offset < count {
            if block == nil { block = .allocate(byteCount: Self.blockSize, alignment: 4096) }
            if blockCount == 0 { blockStarted = DispatchTime.now().uptimeNanoseconds }
            let n = min(count - offset, Self.blockSize - blockCount)
            chunk.withUnsafeBytes { src in
                (block!.baseAddress! + blockCount).copyMemory(from: src.baseAddress! + offset, byteCount: n)
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
            context.progress.holds(Int64(blockCount), part: part.id)
        }
    }

    /// Writes (and hashes, when next in order) the buffered block, then reports progress.
    func flush() async throws {
        guard blockCount > 0, let block else { return }
        let bytes = BytesRef(block: UnsafeRawBufferPointer(start: block.baseAddress, count: blockCount))
        blockCount = 0
        try await consume(bytes)
    }

    /// Writes bytes at the part's offset while the same bytes are hashed here if they are
    /// next in order; the bytes stay alive (and the next chunk waits) until both are done.
    private func consume(_ bytes: BytesRef) async throws {
        let offset = written, hasher = context.hasher
        try await context.sink.write(bytes, at: offset) {
            _ = bytes.withBytes { hasher.hashIfNext($0, at: offset) }
        }
        let range = offset..<(offset + Int64(bytes.count))
        written = range.upperBound
        context.scheduler.wrote(range, part: part.id)
        hasher.wrote(range)
        if written - writebackStarted >= OffsetSink.writebackInterval {
            context.sink.startWriteback(from: writebackStarted, length: written - writebackStarted)
            writebackStarted = written
        }
        lastProgress = DispatchTime.now().uptimeNanoseconds
        context.progress.wrote(Int64(bytes.count), part: part.id)
    }
}

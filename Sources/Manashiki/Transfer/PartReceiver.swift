import Foundation
import ManashikiCore

/// Receives the answer to one request of one part: checks its head (`ResponseValidator`, the
/// object's identity), then writes each chunk the transport hands over at its offset as it comes
/// (`OffsetSink`, one `pwrite` per chunk, straight from the transport's buffer), hashing it in
/// the same pass when it is next in order, and records it in the ledger once the write returned;
/// stops at the part's end, which shrinks when another connection takes the rest.
///
/// Nothing is held back: a byte the transport handed over is on disk (and counted) before the
/// next chunk is asked for, so an interruption costs only what the transport and the kernel
/// still held.
final class PartReceiver: HTTPBodyConsumer, @unchecked Sendable {
    private let context: TransferContext
    /// The part being received (replaced when the transfer starts over as one stream).
    private(set) var part: TransferLedger.Part
    /// Whether the request carried a `Range` header.
    private let ranged: Bool
    /// The offset of the next byte to write (bytes before it are on disk).
    private(set) var written: Int64
    /// The artifact's total size as the storage host declared it in this answer, if it did.
    private(set) var declaredTotal: Int64?
    private var writebackStarted: Int64

    init(_ context: TransferContext, part: TransferLedger.Part, from offset: Int64, ranged: Bool) {
        self.context = context
        self.part = part
        self.ranged = ranged
        written = offset
        writebackStarted = offset
    }

    func receive(head: HTTPResponseHead) async throws {
        let (body, identity) = try context.validator.check(head, start: written, ranged: ranged)
        switch body {
        case .fromRequestedOffset(let total):
            declaredTotal = total
            if ranged { context.ledger.rangesConfirmed() }
        case .wholeObject(let total):
            // The host ignored Range: continue with this answer as one stream from byte 0
            // when this is the only part, else leave the bytes to the parts that got ranges.
            if written > 0 || part.end != context.ledger.total {
                guard let whole = try await context.startOver(.rangeIgnored, keeping: part.id) else {
                    context.ledger.rangeIgnored()
                    throw StorageSignal.rangeIgnored
                }
                part = whole
                written = 0
                writebackStarted = 0
            }
            context.ledger.rangeIgnored()
            declaredTotal = total
        }
        try context.accept(identity)
        context.ledger.declare(total: declaredTotal)
    }

    func receive(chunk: Data) async throws {
        if let expectedSize = context.validator.expectedSize, written + Int64(chunk.count) > expectedSize {
            throw APIError.bodyTooLong(expected: expectedSize)
        }
        if let deadline = context.deadline, deadline.hasPassed { throw StorageSignal.deadlinePassed }
        // A part whose end moved (another connection took the rest) keeps only its bytes.
        var count = chunk.count
        let end = context.ledger.end(of: part.id)
        if let end, written + Int64(count) > end { count = Int(max(0, end - written)) }
        if count > 0 { try await consume(BytesRef(chunk, range: 0..<count)) }
        if count < chunk.count || (end.map { written >= $0 && $0 != part.end } ?? false) {
            throw StorageSignal.partEnded
        }
    }

    /// Writes `bytes` at the part's offset on the I/O thread while the same bytes are hashed
    /// here if they are next in order; the bytes stay alive (and the next chunk waits) until
    /// both are done. Then the ledger records them, and what that leaves to do (hash what the
    /// frontier can now reach, a checkpoint, a progress report) is done here, outside its lock.
    /// The CPU time all this took is the connection's busy time (`ConnectionController`).
    private func consume(_ bytes: BytesRef) async throws {
        let offset = written, ledger = context.ledger
        await ledger.makeRoom(for: bytes.count)
        let hashing = ledger.claimHash(at: offset)
        var cpu: UInt64 = 0
        do {
            cpu = try await context.sink.write(bytes, at: offset) {
                if hashing { bytes.withBytes { ledger.digest.update($0) } }
            }
        } catch {
            if hashing { ledger.hashFailed(error) }
            throw error
        }
        let range = offset..<(offset + Int64(bytes.count))
        written = range.upperBound
        let after = ledger.didWrite(range, part: part.id, bytes: bytes, hashed: hashing)
        if written - writebackStarted >= OffsetSink.writebackInterval {
            context.sink.startWriteback(from: writebackStarted, length: written - writebackStarted)
            writebackStarted = written
        }
        ThreadCPUTime.measure(&cpu) { ledger.carryOut(after) }
        ledger.addBusy(cpu)
    }
}

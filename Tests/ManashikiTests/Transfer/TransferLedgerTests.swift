import Foundation
import Testing
@testable import Manashiki
import ManashikiCore
import ManashikiTestSupport

/// The ledger's parts: which bytes each connection fetches.
@Suite("TransferLedger: which bytes each connection fetches")
struct TransferLedgerPartsTests {
    static let mib: Int64 = 1 << 20

    /// A ledger with `written` on disk already (the parts' tests need no file).
    static func ledger(total: Int64?, written: ByteRangeSet = ByteRangeSet(), partSize: Int64 = 8 * mib) -> TransferLedger {
        let ledger = TransferLedger(total: total, partSize: partSize)
        ledger.state.withLock { $0.written = written }
        return ledger
    }

    @Test("one connection gets the whole artifact as one part, then nothing")
    func singleStream() {
        let s = Self.ledger(total: 100 * Self.mib)
        let part = s.next(splitting: false)
        #expect(part?.start == 0 && part?.end == 100 * Self.mib)
        #expect(s.next(splitting: false) == nil)
        s.mark(0..<(100 * Self.mib), part: part!.id)
        s.finish(part!.id)
        #expect(s.isComplete)
    }

    @Test("parts that may run in parallel are the lowest free grid parts; no byte is assigned twice")
    func splitting() {
        let total = 40 * Self.mib + 123
        let s = Self.ledger(total: total)
        var parts: [TransferLedger.Part] = []
        while let p = s.next(splitting: true) { parts.append(p) }
        #expect(parts.map(\.start) == [0, 8, 16, 24, 32, 40].map { $0 * Self.mib })
        #expect(parts.map(\.end) == [8, 16, 24, 32, 40].map { $0 * Self.mib } + [total])
        var covered = ByteRangeSet()
        for p in parts {
            #expect(covered.coveredEnd(from: p.start) == nil)
            covered.insert(p.start..<p.end!)
        }
        #expect(covered.ranges == [0..<total])
        // A part given up mid-way: its unwritten rest is the next part handed out; settled on
        // one connection, everything missing from there goes as one part.
        s.mark((8 * Self.mib)..<(10 * Self.mib), part: parts[1].id)
        s.release(parts[1].id)
        s.release(parts[5].id)
        let again = s.next(splitting: false)
        #expect(again?.start == 10 * Self.mib && again?.end == 16 * Self.mib)
        #expect(s.next(splitting: false)?.start == 40 * Self.mib)
    }

    @Test("a connection running alone takes as many grid parts as are written (1 to 8); once others run, one grid part")
    func aloneGrows() {
        let total = 200 * Self.mib + 5
        let s = Self.ledger(total: total)
        var ends: [Int64] = []
        while let p = s.next(splitting: true, alone: true) {
            ends.append(p.end!)
            s.mark(p.start..<p.end!, part: p.id)
            s.finish(p.id)
            if p.end! >= 128 * Self.mib { break }
        }
        #expect(ends == [8, 16, 32, 64, 128].map { $0 * Self.mib })
        let capped = s.next(splitting: true, alone: true)!
        #expect(capped.start == 128 * Self.mib && capped.end == 192 * Self.mib) // at most 8 parts
        #expect(s.next(splitting: true, alone: true)?.end == total) // and never past the gap
        let shared = Self.ledger(total: total, written: ByteRangeSet([0..<(64 * Self.mib)]))
        #expect(shared.next(splitting: true, alone: false)?.end == 72 * Self.mib)
        // A gap that starts off the grid (a part given up mid-way) ends on the grid.
        let resumed = Self.ledger(total: total, written: ByteRangeSet([0..<(20 * Self.mib + 7)]))
        #expect(resumed.next(splitting: true, alone: true)?.end == 40 * Self.mib)
    }

    @Test("after a resume the missing ranges are handed out, parts already on disk are not")
    func resumeGaps() {
        let total = 32 * Self.mib
        let s = Self.ledger(total: total, written: ByteRangeSet([0..<(4 * Self.mib), (16 * Self.mib)..<(24 * Self.mib)]))
        let a = s.next(splitting: false)!
        #expect(a.start == 4 * Self.mib && a.end == 16 * Self.mib)
        let b = s.next(splitting: false)!
        #expect(b.start == 24 * Self.mib && b.end == total)
        #expect(s.next(splitting: false) == nil)
        #expect(!s.isComplete)
    }

    @Test("start over: with a part, only when it runs alone, which then gets the whole artifact; every byte is forgotten and the cost recorded")
    func startOver() async {
        let s = Self.ledger(total: 10 * Self.mib, partSize: 4 * Self.mib)
        let a = s.next(splitting: true)!, b = s.next(splitting: true)!
        s.mark(0..<Self.mib, part: a.id)
        #expect(await s.startOver(.rangeIgnored, keeping: b.id) == nil) // another part runs
        #expect(s.written.count == Self.mib && s.startOvers.isEmpty)
        s.release(a.id)
        let whole = await s.startOver(.rangeIgnored, keeping: b.id)
        #expect(whole?.start == 0 && whole?.end == 10 * Self.mib)
        #expect(s.written.isEmpty && s.activeCount == 1)
        #expect(s.startOvers == [StartOver(reason: .rangeIgnored, bytesDiscarded: Self.mib)])
    }

    @Test("an artifact of unknown size is one open-ended part, complete when its stream ends")
    func unknownSize() {
        let s = Self.ledger(total: nil)
        let p = s.next(splitting: true)!
        #expect(p.end == nil)
        #expect(s.next(splitting: true) == nil)
        s.mark(0..<5000, part: p.id)
        s.finish(p.id, endReached: true)
        #expect(s.isComplete)
    }

    @Test("verified progress: bytes the hash could take but has not yet do not count; bytes beyond the first gap do", arguments: [
        // (written ranges in MiB, hashed MiB, progress MiB)
        ([0..<16], 16, 16),          // the hash keeps up: everything written counts
        ([0..<16], 4, 4),            // 12 MiB wait to be hashed: the backlog does not count
        ([8..<16], 0, 8),            // part 2 ahead of a gap at 0: the hash cannot take it yet
        ([0..<8, 10..<20], 8, 18),   // the frontier at a gap: nothing waits for the hash
        ([0..<8, 10..<20], 2, 12),   // 6 MiB behind the frontier's gap wait; the 10 MiB beyond count
        ([0..<4], 5, 4),             // a chunk hashed in memory just before it is recorded as written
    ] as [([Range<Int64>], Int64, Int64)])
    func verifiedProgress(_ ranges: [Range<Int64>], _ hashed: Int64, _ expected: Int64) {
        let m = Self.mib
        let written = ByteRangeSet(ranges.map { ($0.lowerBound * m)..<($0.upperBound * m) })
        #expect(TransferLedger.verifiedProgress(written: written, hashed: hashed * m) == expected * m)
    }
}

/// The ledger's hash, progress and checkpoints, driven as `PartReceiver` drives them, over a
/// real file.
@Suite("TransferLedger: hash, progress and checkpoints")
struct TransferLedgerRecordTests {
    static let chunk = 1 << 20

    /// A scratch file holding `bytes`, open for reading.
    final class File {
        let scratch = ScratchDirectory("ledger")
        let fd: Int32
        let path: String
        init(_ bytes: Data) throws {
            path = scratch.file("partial").path
            try bytes.write(to: URL(fileURLWithPath: path))
            fd = open(path, O_RDONLY)
        }
        deinit { close(fd); scratch.remove() }
    }

    /// Pseudo-random bytes (xorshift), filled in place: quick even in a debug build.
    static func artifact(_ size: Int) -> Data {
        var bytes = Data(count: size)
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        bytes.withUnsafeMutableBytes { (raw: UnsafeMutableRawBufferPointer) in
            for i in 0..<size {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17
                raw[i] = UInt8(truncatingIfNeeded: x)
            }
        }
        return bytes
    }

    /// Writes `range` of `bytes` as a receiver does: claims the hash, hashes, records, carries out.
    static func write(_ ledger: TransferLedger, _ bytes: Data, _ range: Range<Int>, part: Int) {
        let chunk = BytesRef(bytes, range: range)
        let hashing = ledger.claimHash(at: Int64(range.lowerBound))
        if hashing { chunk.withBytes { ledger.digest.update($0) } }
        ledger.carryOut(ledger.didWrite(Int64(range.lowerBound)..<Int64(range.upperBound), part: part, bytes: chunk, hashed: hashing))
    }

    @Test("parts written out of order are hashed from memory within the window and read back beyond it; the digest is the artifact's", arguments: [0, 2 << 20, 64 << 20])
    func outOfOrder(window: Int) async throws {
        let size = 6 << 20 | 77
        let bytes = Self.artifact(size)
        let file = try File(bytes)
        let ledger = TransferLedger(total: Int64(size), partSize: 2 << 20, fd: file.fd, path: file.path, hashWindow: window,
                                    heldPool: Locked(0)) // not shared with the transfers of tests running meanwhile
        // Chunks of the second and third parts first, then the first part: the frontier waits at 0.
        let order = [2, 3, 4, 5, 6, 0, 1].map { $0 * Self.chunk..<min(size, ($0 + 1) * Self.chunk) }
        for r in order { Self.write(ledger, bytes, r, part: 1) }
        let digest = try await ledger.digest(of: Int64(size)).hex
        #expect(digest == SHA256Hasher.hash(bytes).hex)
        let beyond = Int64(size - 2 * Self.chunk)
        #expect(ledger.bytesReadBack == max(0, beyond - Int64(window)))
    }

    @Test("transfers sharing a transport hold at most one window for the hash together (held bytes keep the transport's buffers), and give it back when they end")
    func sharedWindow() async throws {
        let size = 4 << 20
        let bytes = Self.artifact(size)
        let file = try File(bytes)
        let pool = Locked(0)
        var first: TransferLedger? = TransferLedger(total: Int64(size), partSize: 1 << 20, fd: file.fd, path: file.path, hashWindow: 2 << 20, heldPool: pool)
        let second = TransferLedger(total: Int64(size), partSize: 1 << 20, fd: file.fd, path: file.path, hashWindow: 2 << 20, heldPool: pool)
        for ledger in [first!, second] {
            for c in 1..<4 { Self.write(ledger, bytes, c * Self.chunk..<(c + 1) * Self.chunk, part: 1) } // the frontier waits at 0
        }
        #expect(pool.current == 2 << 20)
        #expect(first!.state.withLock { $0.hash.heldBytes } == 2 << 20 && second.state.withLock { $0.hash.heldBytes } == 0)
        first = nil // a transfer that ended (cancelled) with bytes held
        #expect(pool.current == 0)
        Self.write(second, bytes, 0..<Self.chunk, part: 1)
        #expect(try await second.digest(of: Int64(size)).hex == SHA256Hasher.hash(bytes).hex)
        #expect(second.bytesReadBack == 3 << 20)
    }

    @Test("one stream in order is hashed as it is written: nothing is read back, nothing is held")
    func inOrder() async throws {
        let size = 5 << 20 | 3
        let bytes = Self.artifact(size)
        let file = try File(bytes)
        let ledger = TransferLedger(total: Int64(size), fd: file.fd, path: file.path, hashWindow: 4 << 20)
        for start in stride(from: 0, to: size, by: Self.chunk) { Self.write(ledger, bytes, start..<min(size, start + Self.chunk), part: 1) }
        #expect(try await ledger.digest(of: Int64(size)).hex == SHA256Hasher.hash(bytes).hex)
        #expect(ledger.bytesReadBack == 0 && ledger.state.withLock { $0.hash.held.isEmpty })
    }

    @Test("progress from many threads: called outside the lock, one call at a time, never backwards, ending at the total")
    func progress() async {
        let total: Int64 = 64 << 20
        let calls = Locked<[Int64]>([]), inside = Locked(0), overlapped = Locked(false)
        let ledger = TransferLedger(total: total, progress: { written, reportedTotal in
            if inside.withLock({ $0 += 1; return $0 }) > 1 { overlapped.withLock { $0 = true } }
            calls.withLock { $0.append(written) }
            #expect(reportedTotal == total)
            inside.withLock { $0 -= 1 }
        })
        let bytes = Data(count: 1 << 16)
        await withTaskGroup(of: Void.self) { group in
            for part in 0..<8 {
                group.addTask {
                    for i in 0..<128 {
                        let start = Int64(part) * (8 << 20) + Int64(i) * (1 << 16)
                        let after = ledger.didWrite(start..<(start + (1 << 16)), part: part, bytes: BytesRef(bytes, range: 0..<bytes.count), hashed: false)
                        if let value = after.progress { ledger.deliverProgress(from: value) }
                    }
                }
            }
        }
        ledger.finishProgress(size: total)
        let values = calls.current
        #expect(!overlapped.current)
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 })
        #expect(values.last == total)
    }

    @Test("once recorded by parts, a checkpoint is due after a part's worth of bytes or a finished part, one at a time, naming only written bytes")
    func checkpoints() async {
        let records = Locked<[ByteRangeSet?]>([])
        // No time-based checkpoint here (the machine may be slow): only bytes and parts count.
        let l = TransferLedger(total: 64 << 20, partSize: 4 << 20, recorder: { snapshot in records.withLock { $0.append(snapshot) } },
                               checkpointInterval: .max)
        let bytes = Data(count: 1 << 20)
        let chunk = BytesRef(bytes, range: 0..<bytes.count)
        // In order: no checkpoint (the partial's length is what it holds).
        for i in 0..<6 { _ = l.didWrite(Int64(i) << 20..<Int64(i + 1) << 20, part: 1, bytes: chunk, hashed: false) }
        await l.checkpointIdle()
        #expect(records.current.isEmpty && !l.recordsParts)
        await l.recordByParts()
        #expect(records.current == [ByteRangeSet([0..<(6 << 20)])] && l.recordsParts)
        // Three more MiB: not yet due; the fourth is.
        var due: [Bool] = []
        for i in 8..<12 {
            let after = l.didWrite(Int64(i) << 20..<Int64(i + 1) << 20, part: 2, bytes: chunk, hashed: false)
            due.append(after.checkpoint != nil)
            l.carryOut(after)
        }
        await l.checkpointIdle()
        #expect(due == [false, false, false, true])
        #expect(records.current.last == ByteRangeSet([0..<(6 << 20), (8 << 20)..<(12 << 20)]))
        // A finished part makes one due at once.
        let part = l.next(splitting: true)!
        _ = l.didWrite(part.start..<(part.start + (1 << 20)), part: part.id, bytes: chunk, hashed: false)
        l.finish(part.id)
        await l.checkpointIdle()
        #expect(records.current.count == 3 && records.current.last??.count == 11 << 20)
    }

    @Test("back to one stream that continues the prefix: the file is cut to it, the sidecar says in order, and no checkpoint follows; not while a gap or another part remains")
    func backInOrder() async {
        let records = Locked<[ByteRangeSet?]>([]), cuts = Locked<[Int64]>([])
        let cut: @Sendable (Int64) throws -> Void = { length in cuts.withLock { $0.append(length) } }
        let l = TransferLedger(total: 64 << 20, partSize: 4 << 20, recorder: { snapshot in records.withLock { $0.append(snapshot) } },
                               checkpointInterval: .max)
        l.allowSplitting()
        await l.recordByParts()
        let chunk = BytesRef(Data(count: 1 << 20), range: 0..<(1 << 20))
        let a = l.next(splitting: true)!, b = l.next(splitting: true)!, c = l.next(splitting: true)!
        for i in 0..<4 { l.carryOut(l.didWrite(Int64(i) << 20..<Int64(i + 1) << 20, part: a.id, bytes: chunk, hashed: false)) }
        l.finish(a.id)
        l.carryOut(l.didWrite(b.start..<(b.start + (1 << 20)), part: b.id, bytes: chunk, hashed: false))
        l.carryOut(l.didWrite(c.start..<(c.start + (1 << 20)), part: c.id, bytes: chunk, hashed: false))
        l.release(b.id) // its connection retired mid-part
        l.setTarget(1, settled: true)
        // Part c still runs: still recorded by parts.
        let gap = l.next(splitting: l.splitting)!
        #expect(gap.start == 5 << 20 && gap.end == c.start)
        await l.recordInOrderIfPrefix(before: gap, truncate: cut)
        #expect(l.recordsParts && cuts.current.isEmpty)
        for i in 9..<12 { l.carryOut(l.didWrite(Int64(i) << 20..<Int64(i + 1) << 20, part: c.id, bytes: chunk, hashed: false)) }
        l.finish(c.id)
        // The gap is the only part now, but c's bytes lie beyond it: still by parts.
        await l.recordInOrderIfPrefix(before: gap, truncate: cut)
        #expect(l.recordsParts && cuts.current.isEmpty)
        for i in 5..<8 { l.carryOut(l.didWrite(Int64(i) << 20..<Int64(i + 1) << 20, part: gap.id, bytes: chunk, hashed: false)) }
        l.finish(gap.id)
        // One stream left, continuing the prefix 0..<12 MiB: in order again.
        await l.checkpointIdle()
        let recordedBefore = records.current.count
        let last = l.next(splitting: l.splitting)!
        #expect(last.start == 12 << 20 && last.end == 64 << 20)
        await l.recordInOrderIfPrefix(before: last, truncate: cut)
        #expect(!l.recordsParts && cuts.current == [12 << 20])
        #expect(records.current.count == recordedBefore + 1 && records.current.last == .some(nil))
        for i in 12..<20 {
            let after = l.didWrite(Int64(i) << 20..<Int64(i + 1) << 20, part: last.id, bytes: chunk, hashed: false)
            #expect(after.checkpoint == nil)
            l.carryOut(after)
        }
        await l.checkpointIdle()
        #expect(records.current.count == recordedBefore + 1)
    }
}

extension TransferLedger {
    /// Records `range` as written by part `id`, and nothing else (no hash, checkpoint or progress).
    func mark(_ range: Range<Int64>, part id: Int) {
        state.withLock { s in
            s.written.insert(range)
            if let cursor = s.active[id]?.cursor { s.active[id]?.cursor = max(cursor, range.upperBound) }
        }
    }
}

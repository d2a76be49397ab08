import Foundation
import ManashikiCore

/// When the partial's sidecar records what is on disk, so that `kill -9` or a power loss costs
/// at most the bytes in flight.
///
/// A partial written in order needs no checkpoint: its length is what it holds (the sidecar
/// written before the first byte says so). Once bytes are written out of order (several
/// connections, or a kept partial's parts), only recorded bytes count: the sidecar is rewritten
/// whenever a part ends, whenever a part's worth of bytes (`partSize`) is unrecorded, and at
/// least every second while bytes arrive, one write at a time, on the I/O queue. Each records
/// only bytes whose `pwrite` returned, flushed to disk before the sidecar naming them is
/// renamed into place (`recorder`). A connection about to write past a part's worth of
/// unrecorded bytes waits for the checkpoint (`makeRoom(for:)`), so after a crash the bytes
/// written but not recorded are at most one part per running connection, however slow the disk.
extension TransferLedger {
    struct CheckpointState {
        /// What the sidecar records; nil while the partial is recorded in order (its length).
        var recorded: ByteRangeSet?
        /// A start-over discarded recorded parts: the sidecar must say "in order" again.
        var inOrderNeeded = false
        /// Whether a sidecar is being written.
        var running = false
        /// Whether a part ended since the last one started.
        var partDone = false
        /// When the last one started (uptime nanoseconds).
        var lastStarted: UInt64 = 0
        /// Unrecorded bytes that make a checkpoint due (the part size).
        var dueBytes: Int64 = 8 << 20
        /// Nanoseconds after which unrecorded bytes make a checkpoint due.
        var interval: UInt64 = TransferLedger.checkpointInterval
        var idleWaiters: [CheckedContinuation<Void, Never>] = []

        mutating func startOver() {
            if recorded != nil { inOrderNeeded = true }
            recorded = nil
            partDone = false
        }
    }

    /// The longest time written bytes go unrecorded while a partial is recorded by parts
    /// (nanoseconds; the default of `init(checkpointInterval:)`).
    static let checkpointInterval: UInt64 = 1_000_000_000

    /// Whether the partial is recorded by parts (bytes were, or may be, written out of order).
    var recordsParts: Bool { state.withLock { $0.checkpoint.recorded != nil } }

    /// Claims the next checkpoint if one is due and none runs; returns the bytes to record.
    static func claimCheckpoint(_ s: inout State, partDone: Bool) -> ByteRangeSet? {
        if partDone { s.checkpoint.partDone = true }
        guard let recorded = s.checkpoint.recorded, !s.checkpoint.running else { return nil }
        let unrecorded = s.written.count - recorded.count
        guard unrecorded > 0 else { return nil }
        let now = Deadline.now
        guard unrecorded >= s.checkpoint.dueBytes || s.checkpoint.partDone
                || now - s.checkpoint.lastStarted >= s.checkpoint.interval else { return nil }
        return startCheckpoint(&s)
    }

    /// Marks a checkpoint as running and returns the bytes it records.
    private static func startCheckpoint(_ s: inout State) -> ByteRangeSet {
        s.checkpoint.running = true
        s.checkpoint.partDone = false
        s.checkpoint.lastStarted = Deadline.now
        return s.written
    }

    /// Starts a checkpoint if one is due (the controller's tick: bytes written before a stall
    /// are recorded within about a second even when no more arrive).
    func checkpointIfDue() {
        if let snapshot = state.withLock({ Self.claimCheckpoint(&$0, partDone: false) }) { record(snapshot) }
    }

    /// Waits, before a connection writes `count` more bytes of a partial recorded by parts,
    /// until the bytes written but not yet recorded stay within one part (`dueBytes`): starts a
    /// checkpoint if none runs and waits for it. The sidecar's flushes are slower than the link
    /// on a busy disk; without this back-pressure a crash could cost more than the promised one
    /// part per running connection.
    func makeRoom(for count: Int) async {
        while true {
            let (wait, snapshot) = state.withLock { s -> (Bool, ByteRangeSet?) in
                guard let recorded = s.checkpoint.recorded else { return (false, nil) }
                let unrecorded = s.written.count - recorded.count
                guard unrecorded > 0, unrecorded + Int64(count) > s.checkpoint.dueBytes else { return (false, nil) }
                return (true, s.checkpoint.running ? nil : Self.startCheckpoint(&s))
            }
            if let snapshot { record(snapshot) }
            guard wait else { return }
            await checkpointIdle()
        }
    }

    /// Writes the sidecar for `snapshot` on the I/O queue (its flushes can take long on a busy
    /// disk, and must not hold a thread of the cooperative pool), then the next one if due.
    func record(_ snapshot: ByteRangeSet) {
        OffsetSink.ioQueue.async { [self] in
            var next: ByteRangeSet? = snapshot
            while let bytes = next {
                recorder?(bytes)
                next = state.withLock { s -> ByteRangeSet? in
                    s.checkpoint.recorded = bytes
                    s.checkpoint.running = false
                    if let claimed = Self.claimCheckpoint(&s, partDone: false) { return claimed }
                    Self.wakeCheckpointWaiters(&s)
                    return nil
                }
            }
        }
    }

    /// Records the bytes on disk by parts before the first byte written out of order (the
    /// connection controller adds a connection), unless the partial is recorded so already.
    func recordByParts() async {
        await checkpointIdle()
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let snapshot = state.withLock { s -> ByteRangeSet? in
                guard s.checkpoint.recorded == nil, !s.checkpoint.running else { return nil }
                s.checkpoint.running = true
                s.checkpoint.lastStarted = Deadline.now
                return s.written
            }
            guard let snapshot else { return c.resume() }
            OffsetSink.ioQueue.async { [self] in
                recorder?(snapshot)
                state.withLock { s in
                    s.checkpoint.recorded = snapshot
                    s.checkpoint.running = false
                    Self.wakeCheckpointWaiters(&s)
                }
                c.resume()
            }
        }
    }

    /// After a start-over that discarded recorded parts: records the partial as written in
    /// order again (it was truncated), so a crash never takes the old parts for bytes on disk.
    func recordInOrderIfNeeded() async {
        await checkpointIdle()
        let needed = state.withLock { s -> Bool in
            defer { s.checkpoint.inOrderNeeded = false }
            return s.checkpoint.inOrderNeeded
        }
        guard needed else { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            OffsetSink.ioQueue.async { [self] in
                recorder?(nil)
                c.resume()
            }
        }
    }

    /// Records the partial in order again when one connection is left and `part` continues a
    /// prefix: parts are no longer split (the controller settled on one stream), `part` is the
    /// only one running, and every byte written is `0..<part.start`. The file is cut to that
    /// prefix first (a kept partial may hold bytes its sidecar never named), then the sidecar
    /// says "in order" (its length is what it holds). From then on the stream costs no
    /// checkpoints (each flushes the file: on a disk, a stall every part) and a crash keeps every
    /// byte written. Call before `part` writes its first byte.
    func recordInOrderIfPrefix(before part: Part, truncate: @escaping @Sendable (Int64) throws -> Void) async {
        guard recordsParts else { return }
        await checkpointIdle()
        let claimed = state.withLock { s -> Bool in
            guard s.checkpoint.recorded != nil, !s.checkpoint.running, !s.connections.splitting,
                  s.active.count == 1, s.active[part.id] != nil,
                  s.written.ranges == (part.start > 0 ? [0..<part.start] : []) else { return false }
            s.checkpoint.running = true
            return true
        }
        guard claimed else { return }
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            OffsetSink.ioQueue.async { [self] in
                let cut = (try? truncate(part.start)) != nil
                if cut { recorder?(nil) }
                state.withLock { s in
                    if cut { s.checkpoint.recorded = nil }
                    s.checkpoint.running = false
                    Self.wakeCheckpointWaiters(&s)
                }
                c.resume()
            }
        }
    }

    /// Waits until no sidecar is being written (before the transfer's end keeps or installs
    /// the partial).
    func checkpointIdle() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.checkpoint.running { s.checkpoint.idleWaiters.append(c) }
                return !s.checkpoint.running
            }
            if now { c.resume() }
        }
    }

    private static func wakeCheckpointWaiters(_ s: inout State) {
        let waiters = s.checkpoint.idleWaiters
        s.checkpoint.idleWaiters = []
        for w in waiters { w.resume() }
    }
}

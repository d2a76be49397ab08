import ManashikiCore

/// Which bytes each connection fetches, and what was written.
///
/// With one connection the part is everything still missing: a plain single stream, one
/// request. When parts may run in parallel (`next(splitting: true)`) the artifact is fetched in
/// parts of `partSize` on a fixed grid, each with a bounded `Range` request, and every connection
/// takes the lowest part nobody fetches: the part after the hashed frontier first, so the bytes
/// complete roughly in order (the hash takes most of them from memory), no part is ever cut (no
/// byte in flight is wasted), and no byte is assigned twice.
extension TransferLedger {
    /// The most grid parts one part spans while its connection runs alone (`next(alone:)`).
    static let maxAloneParts: Int64 = 8

    /// Connections fetching a part right now.
    var activeCount: Int { state.withLock { $0.active.count } }

    /// The next part for a connection: everything missing from the first gap on, or
    /// (`splitting`) the lowest grid part nobody fetches; nil when nothing is left. A
    /// connection that runs `alone` while parts may still be split (the controller has not
    /// decided yet) gets as many grid parts as are written so far (1 to `maxAloneParts`): a
    /// fast single stream makes few requests, and a part is never longer than what is already
    /// written (a kept partial's bytes included), so one that others join soon after is never
    /// left far behind.
    func next(splitting: Bool, alone: Bool = false) -> Part? {
        state.withLock { s -> Part? in
            guard let total = s.total else {
                guard s.active.isEmpty, !s.endReached else { return nil }
                return Self.assign(&s, start: s.written.prefix, end: nil)
            }
            var claimed = s.written
            for a in s.active.values { claimed.insert(a.cursor..<(a.end ?? total)) }
            guard let gap = claimed.gaps(upTo: total).first else { return nil }
            guard splitting else { return Self.assign(&s, start: gap.lowerBound, end: gap.upperBound) }
            let span = alone ? min(Self.maxAloneParts * partSize, max(partSize, s.written.count)) : partSize
            let gridEnd = max((gap.lowerBound / partSize + 1) * partSize, (gap.lowerBound + span) / partSize * partSize)
            return Self.assign(&s, start: gap.lowerBound, end: min(gap.upperBound, gridEnd))
        }
    }

    /// Where part `id` ends now (nil: to the end of the artifact, or the part is gone).
    func end(of id: Int) -> Int64? { state.withLock { $0.active[id]?.end ?? $0.total } }

    /// Part `id` is done: its range is written (`endReached`: an open-ended part's stream ended).
    func finish(_ id: Int, endReached: Bool = false) {
        let checkpoint = state.withLock { s -> ByteRangeSet? in
            if s.active.removeValue(forKey: id) != nil, endReached { s.endReached = true }
            return Self.claimCheckpoint(&s, partDone: true)
        }
        if let checkpoint { record(checkpoint) }
    }

    /// Part `id` stopped before its end: what it did not write goes back to the missing bytes.
    func release(_ id: Int) { state.withLock { _ = $0.active.removeValue(forKey: id) } }

    /// Adopts a kept partial's bytes before any part runs: its prefix (already hashed from disk,
    /// `adoptPrefix`) and its parts (hashed when the frontier reaches them); the progress starts
    /// there. Parts beyond the prefix mean the partial is recorded by parts from now on.
    func adopt(parts: ByteRangeSet) {
        state.withLock { s in
            for r in parts.ranges { s.written.insert(r) }
            if let total = s.total { s.written = s.written.clipped(to: total) }
            if !parts.isEmpty { s.checkpoint.recorded = s.written }
        }
    }

    /// Records that part `id` wrote `range` (its `pwrite` returned) from `bytes`, hashed in
    /// memory already when `hashed`; says what the caller does next, outside the lock: hash
    /// what the frontier can now reach, record a checkpoint, report progress.
    func didWrite(_ range: Range<Int64>, part id: Int, bytes: BytesRef, hashed: Bool) -> AfterWrite {
        state.withLock { s in
            s.written.insert(range)
            if let cursor = s.active[id]?.cursor { s.active[id]?.cursor = max(cursor, range.upperBound) }
            var after = AfterWrite()
            after.hash = hashAfterWrite(&s, range, bytes: bytes, hashed: hashed)
            after.checkpoint = Self.claimCheckpoint(&s, partDone: false)
            after.progress = Self.claimProgress(&s, value: s.written.count)
            return after
        }
    }

    /// What a write leaves to do outside the lock.
    struct AfterWrite {
        /// This caller holds the digest and hashes what the frontier can reach (`drainHash`).
        var hash = false
        /// Bytes to record in the sidecar (`record`).
        var checkpoint: ByteRangeSet?
        /// A progress value this caller delivers (`deliverProgress`).
        var progress: Int64?
    }

    /// Does what `didWrite` left to do: hashes, records, reports.
    func carryOut(_ after: AfterWrite) {
        if let checkpoint = after.checkpoint { record(checkpoint) }
        if let value = after.progress { deliverProgress(from: value) }
        if after.hash { drainHash() }
    }
}

import ManashikiCore

/// Decides which bytes each connection of a transfer fetches, and records what was written.
///
/// A part is a range `[start, end)` of the artifact that one connection fetches with one
/// request (`end` nil: to the end of an artifact of unknown size). With one connection the
/// part is everything still missing: a plain single stream, one request. When parts may run
/// in parallel (`next(splitting: true)`) the artifact is fetched in parts of `partSize` on a
/// fixed grid, each with a bounded `Range` request, and every connection takes the lowest
/// part nobody fetches: the bytes complete roughly in order (the hasher reads back little),
/// no part is ever cut (no byte in flight is wasted), and no byte is assigned twice.
final class PartScheduler: Sendable {
    /// One connection's assignment.
    struct Part: Sendable, Hashable {
        /// Identifies the part while it runs.
        let id: Int
        /// The first byte.
        let start: Int64
        /// The end (exclusive) when it was handed out; it may shrink later (`end(of:)`).
        let end: Int64?
    }

    private struct Active {
        var cursor: Int64
        var end: Int64?
    }

    private struct State {
        var total: Int64?
        var written: ByteRangeSet
        var active: [Int: Active] = [:]
        var nextID = 0
        /// An artifact of unknown size whose open-ended part reached its end.
        var endReached = false
    }

    /// The size of parts once several connections run (the grid they are cut on).
    let partSize: Int64
    private let state: Locked<State>

    /// A scheduler for an artifact of `total` bytes (nil: unknown) of which `written` are on disk.
    init(total: Int64?, written: ByteRangeSet = ByteRangeSet(), partSize: Int64 = 8 << 20) {
        self.partSize = max(64 << 10, partSize)
        state = Locked(State(total: total, written: total.map { written.clipped(to: $0) } ?? ByteRangeSet([0..<written.prefix])))
    }

    /// The artifact's size, when known.
    var total: Int64? { state.withLock { $0.total } }

    /// The bytes written so far.
    var written: ByteRangeSet { state.withLock { $0.written } }

    /// The bytes still to write (nil: the size is unknown).
    var remaining: Int64? { state.withLock { s in s.total.map { $0 - s.written.count } } }

    /// Whether every byte is written (for an unknown size: the stream reached its end).
    var isComplete: Bool {
        state.withLock { s in
            guard let total = s.total else { return s.endReached && s.active.isEmpty }
            return s.written.count >= total
        }
    }

    /// Connections fetching a part right now.
    var activeCount: Int { state.withLock { $0.active.count } }

    /// The most grid parts one part spans while its connection runs alone (`next(alone:)`).
    static let maxAloneParts: Int64 = 8

    /// The next part for a connection: everything missing from the first gap on, or
    /// (`splitting`) the lowest grid part nobody fetches; nil when nothing is left. A
    /// connection that runs `alone` while parts may still be split (the controller has not
    /// decided yet) gets as many grid parts as are written so far (1 to `maxAloneParts`):
    /// a fast single stream makes few requests (each ends with the pipeline drained before
    /// the next one's first byte), and a part is never longer than what is already written
    /// (a kept partial's bytes included), so one that others join soon after is never left
    /// far behind.
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

    private static func assign(_ s: inout State, start: Int64, end: Int64?) -> Part {
        s.nextID += 1
        s.active[s.nextID] = Active(cursor: start, end: end)
        return Part(id: s.nextID, start: start, end: end)
    }

    /// Where part `id` ends now (nil: to the end of the artifact, or the part is gone).
    func end(of id: Int) -> Int64? { state.withLock { $0.active[id]?.end ?? $0.total } }

    /// Records that part `id` wrote `range` (its bytes are on disk, in the page cache at least).
    func wrote(_ range: Range<Int64>, part id: Int) {
        state.withLock { s in
            s.written.insert(range)
            if let cursor = s.active[id]?.cursor { s.active[id]?.cursor = max(cursor, range.upperBound) }
        }
    }

    /// Part `id` is done: its range is written (`endReached`: an open-ended part's stream ended).
    func finish(_ id: Int, endReached: Bool = false) {
        state.withLock { s in
            if s.active.removeValue(forKey: id) != nil, endReached { s.endReached = true }
        }
    }

    /// Part `id` stopped before its end: what it did not write goes back to the missing bytes.
    func release(_ id: Int) { state.withLock { _ = $0.active.removeValue(forKey: id) } }

    /// Forgets everything written and hands the whole artifact to part `id`'s connection as a
    /// new part (a server that ignored `Range`, or bytes that cannot be trusted); nil while
    /// other parts run (they must stop first).
    func restart(from id: Int, total newTotal: Int64?? = .none) -> Part? {
        state.withLock { s -> Part? in
            guard s.active.keys.allSatisfy({ $0 == id }) else { return nil }
            s.active.removeAll()
            s.written = ByteRangeSet()
            s.endReached = false
            if case .some(let t) = newTotal { s.total = t }
            return Self.assign(&s, start: 0, end: s.total)
        }
    }
}

import ManashikiCore

/// Decides which bytes each connection of a transfer fetches, and records what was written.
///
/// A part is a range `[start, end)` of the artifact that one connection fetches with one
/// `Range` request (`end` nil: to the end of an artifact of unknown size). The first part of
/// a fresh transfer is the whole artifact, so one connection is a plain single stream. A
/// connection that joins later takes the first missing range nobody fetches (after a resume),
/// else the back half of the largest range still being fetched: its owner's part then ends
/// where the new one begins, and stops there. No byte is ever fetched by two parts.
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

    /// The smallest part a split leaves on either side.
    let minimumPart: Int64
    private let state: Locked<State>

    /// A scheduler for an artifact of `total` bytes (nil: unknown) of which `written` are on disk.
    init(total: Int64?, written: ByteRangeSet = ByteRangeSet(), minimumPart: Int64 = 4 << 20) {
        self.minimumPart = max(1, minimumPart)
        state = Locked(State(total: total, written: total.map { written.clipped(to: $0) } ?? ByteRangeSet([0..<written.prefix])))
    }

    /// The artifact's size, when known.
    var total: Int64? { state.withLock { $0.total } }

    /// The bytes written so far.
    var written: ByteRangeSet { state.withLock { $0.written } }

    /// Whether every byte is written (for an unknown size: the stream reached its end).
    var isComplete: Bool {
        state.withLock { s in
            guard let total = s.total else { return s.endReached && s.active.isEmpty }
            return s.written.count >= total
        }
    }

    /// Connections fetching a part right now.
    var activeCount: Int { state.withLock { $0.active.count } }

    /// The next part for a connection: the first missing range nobody fetches, else (when
    /// `splitting`) the back half of the largest range being fetched, else nil.
    func next(splitting: Bool) -> Part? {
        state.withLock { s -> Part? in
            guard let total = s.total else {
                guard s.active.isEmpty, !s.endReached else { return nil }
                return Self.assign(&s, start: s.written.prefix, end: nil)
            }
            var unowned = s.written
            for a in s.active.values { unowned.insert(a.cursor..<(a.end ?? total)) }
            if let gap = unowned.gaps(upTo: total).first { return Self.assign(&s, start: gap.lowerBound, end: gap.upperBound) }
            guard splitting else { return nil }
            let largest = s.active.filter { $0.value.end != nil }.max { ($0.value.end! - $0.value.cursor) < ($1.value.end! - $1.value.cursor) }
            guard let (victim, part) = largest, let end = part.end, end - part.cursor >= 2 * minimumPart else { return nil }
            // Split on a 64 KiB boundary so parts stay aligned with the writes.
            let middle = (part.cursor + (end - part.cursor) / 2) & ~Int64(0xFFFF)
            guard middle > part.cursor, middle < end else { return nil }
            s.active[victim]?.end = middle
            return Self.assign(&s, start: middle, end: end)
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

/// Disjoint, sorted byte ranges of an artifact (`[start, end)`): the bytes already written to
/// the partial file, or those still missing.
struct ByteRangeSet: Sendable, Hashable {
    /// The ranges, sorted, disjoint and never adjacent (adjacent ones are merged).
    private(set) var ranges: [Range<Int64>] = []

    init() {}

    init(_ ranges: [Range<Int64>]) {
        for range in ranges { insert(range) }
    }

    /// The number of bytes covered.
    var count: Int64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }

    var isEmpty: Bool { ranges.isEmpty }

    /// Adds `range`, merging it with those it overlaps or touches.
    mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        var merged = range
        var kept: [Range<Int64>] = []
        kept.reserveCapacity(ranges.count + 1)
        for r in ranges {
            if r.upperBound < merged.lowerBound || r.lowerBound > merged.upperBound {
                kept.append(r)
            } else {
                merged = min(r.lowerBound, merged.lowerBound)..<max(r.upperBound, merged.upperBound)
            }
        }
        let index = kept.firstIndex { $0.lowerBound > merged.lowerBound } ?? kept.endIndex
        kept.insert(merged, at: index)
        ranges = kept
    }

    /// The end of the covered range that starts at 0 (0 when byte 0 is not covered).
    var prefix: Int64 {
        guard let first = ranges.first, first.lowerBound == 0 else { return 0 }
        return first.upperBound
    }

    /// The end of the covered range containing `offset`, or nil when `offset` is not covered.
    func coveredEnd(from offset: Int64) -> Int64? {
        ranges.first { $0.contains(offset) }?.upperBound
    }

    /// The parts of `0..<total` not covered, in order.
    func gaps(upTo total: Int64) -> [Range<Int64>] {
        var result: [Range<Int64>] = []
        var cursor: Int64 = 0
        for r in ranges where r.lowerBound < total {
            if r.lowerBound > cursor { result.append(cursor..<r.lowerBound) }
            cursor = max(cursor, r.upperBound)
        }
        if cursor < total { result.append(cursor..<total) }
        return result
    }

    /// Only the bytes below `total`.
    func clipped(to total: Int64) -> ByteRangeSet {
        ByteRangeSet(ranges.compactMap { $0.lowerBound < total ? $0.lowerBound..<min($0.upperBound, total) : nil })
    }
}

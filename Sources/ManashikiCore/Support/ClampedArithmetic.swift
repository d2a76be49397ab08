/// Byte counts and totals in arithmetic that cannot trap: sizes come from documents (a
/// catalog, a record, an index, a state file), and two entries of `"size":
/// 9223372036854775807` summed with `+` crashed the planner (SIGILL). A total that would pass
/// `Int64`'s range stays at its end instead, which every comparison that follows (a plan
/// larger than the free space, than the budget) then refuses with a clear error. Sizes
/// themselves are bounded where they are read (`ModelEntry.maxSize`).
///
/// ```swift
/// let bytes = items.map(\.size).clampedSum()        // never traps
/// let room = capacity.subtractingClamped(mustStay)
/// ```
extension Int64 {
    /// `self + other`, or `Int64.max` / `Int64.min` where that overflows.
    package func addingClamped(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }

    /// `self - other`, or `Int64.min` / `Int64.max` where that overflows.
    package func subtractingClamped(_ other: Int64) -> Int64 {
        let (difference, overflow) = subtractingReportingOverflow(other)
        return overflow ? (other > 0 ? .min : .max) : difference
    }
}

extension Sequence where Element == Int64 {
    /// The sum, clamped to `Int64`'s range (`Int64.addingClamped`).
    package func clampedSum() -> Int64 { reduce(0) { $0.addingClamped($1) } }
}

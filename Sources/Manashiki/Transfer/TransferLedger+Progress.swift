import ManashikiCore

/// The caller's progress closure: the bytes written (their `pwrite` returned, kept bytes
/// included) and the total. It is called outside every lock and never by two threads at once:
/// whoever finds a new value while nobody delivers becomes the deliverer, and keeps delivering
/// until no newer value is waiting. Values never go back (not even when the transfer starts
/// over: the reports then pause until the new bytes pass them), never exceed the total, and a
/// transfer that succeeds ends with the total.
extension TransferLedger {
    struct ProgressState {
        /// The total reported (the artifact's size, or what the storage host declared).
        var total: Int64?
        /// The highest value found so far.
        var reported: Int64 = 0
        /// The last value handed to the closure (-1: none yet).
        var delivered: Int64 = -1
        /// Whether a thread is calling the closure.
        var delivering = false
    }

    /// The total as the storage host declared it in an answer: what the closure reports from
    /// then on (nil when it sends no length, as `downloadModel` documents; before the first
    /// answer, the expected size).
    func declare(total: Int64?) { state.withLock { $0.progress.total = total } }

    /// Records `value` and claims the delivery when nobody delivers and something is new;
    /// returns the value to deliver (`deliverProgress`), else nil.
    static func claimProgress(_ s: inout State, value: Int64) -> Int64? {
        var value = value
        if let total = s.progress.total { value = min(value, total) }
        if value > s.progress.reported { s.progress.reported = value }
        guard !s.progress.delivering, s.progress.reported > s.progress.delivered else { return nil }
        s.progress.delivering = true
        return s.progress.reported
    }

    /// Calls the closure with `value`, then with every newer value found meanwhile, outside
    /// the lock; gives the delivery back when nothing newer waits.
    func deliverProgress(from value: Int64) {
        var value = value
        while true {
            let total = state.withLock { $0.progress.total }
            progressCallback?(value, total)
            let next = state.withLock { s -> Int64? in
                s.progress.delivered = value
                guard s.progress.reported > value else {
                    s.progress.delivering = false
                    return nil
                }
                return s.progress.reported
            }
            guard let next else { return }
            value = next
        }
    }

    /// Reports the bytes on disk now (a resumed transfer's first report: the kept bytes).
    func reportProgress() {
        if let value = state.withLock({ Self.claimProgress(&$0, value: $0.written.count) }) { deliverProgress(from: value) }
    }

    /// Ends a transfer that succeeded: reports its `size` (the total; with a nil total when the
    /// storage host never declared one). Call when no part runs, so this call delivers it
    /// before returning.
    func finishProgress(size: Int64) {
        if let value = state.withLock({ Self.claimProgress(&$0, value: size) }) { deliverProgress(from: value) }
    }
}

import ManashikiCore

/// The connections of a transfer, counted once: how many run, how many the controller wants,
/// and what the storage host showed (ranges served or ignored, throttling), read by the
/// connections themselves and by the controller's observation.
extension TransferLedger {
    struct ConnectionState {
        /// The count the controller wants.
        var target = 1
        /// Connections running (started and not yet ended or retired).
        var running = 0
        /// Whether parts are taken on the grid (parts may run in parallel).
        var splitting = false
        /// Whether more than one connection was wanted at some point.
        var wentParallel = false
        var rangesServed = false
        var rangesIgnored = false
        var throttled = false
        /// CPU nanoseconds the connections spent writing and hashing what they received (the
        /// share of a core this machine needs to keep up).
        var busy: UInt64 = 0
    }

    /// Allows parts on the grid (several connections may run).
    func allowSplitting() { state.withLock { $0.connections.splitting = true } }

    /// A connection starts.
    func connectionStarted() { state.withLock { $0.connections.running += 1 } }

    /// Whether a connection should stop before its next part (more run than wanted); if so,
    /// it is counted as stopped.
    func retires() -> Bool {
        state.withLock { s in
            guard s.connections.running > max(1, s.connections.target) else { return false }
            s.connections.running -= 1
            return true
        }
    }

    /// A connection ended without retiring.
    func connectionEnded() { state.withLock { $0.connections.running -= 1 } }

    /// Connections running now.
    var running: Int { state.withLock { $0.connections.running } }

    /// Sets the connection count wanted; once it settles on one, the last connection takes
    /// everything left as one part instead of grid parts.
    func setTarget(_ target: Int, settled: Bool) {
        state.withLock { s in
            s.connections.target = target
            if target > 1 { s.connections.wentParallel = true }
            if settled && target == 1 { s.connections.splitting = false }
        }
    }

    /// Whether the controller wants one connection now.
    var wantsOne: Bool { state.withLock { $0.connections.target <= 1 } }

    /// Whether parts are taken on the grid, and whether the host ignores ranges.
    var splitting: Bool { state.withLock { $0.connections.splitting && !$0.connections.rangesIgnored } }

    /// Whether more than one connection was wanted at some point.
    var wentParallel: Bool { state.withLock { $0.connections.wentParallel } }

    /// Records that a 206 answered a `Range` request.
    func rangesConfirmed() { state.withLock { $0.connections.rangesServed = true } }

    /// Records that the host answered a `Range` request with the whole object.
    func rangeIgnored() { state.withLock { $0.connections.rangesIgnored = true } }

    /// Whether the host answered a `Range` request with the whole object.
    var rangesIgnored: Bool { state.withLock { $0.connections.rangesIgnored } }

    /// Records a 429 or 503 from the storage host (the controller backs off).
    func throttled() { state.withLock { $0.connections.throttled = true } }

    /// Adds CPU time a connection spent writing and hashing what it received.
    func addBusy(_ nanoseconds: UInt64) { state.withLock { $0.connections.busy += nanoseconds } }

    /// What the controller observes now; takes the throttled flag.
    func observe(at time: UInt64) -> ConnectionController.Observation {
        state.withLock { s in
            defer { s.connections.throttled = false }
            return ConnectionController.Observation(
                sample: .init(time: time, bytes: Self.verifiedProgress(written: s.written, hashed: s.hash.hashed), busy: s.connections.busy),
                rangesServed: s.connections.rangesServed, rangesIgnored: s.connections.rangesIgnored,
                throttled: s.connections.throttled, remaining: s.total.map { $0 - s.written.count })
        }
    }
}

import Foundation

/// A one-way flag that wakes every thread sleeping on it: set when a server stops, so slow
/// drips, stalls and endless bodies end promptly instead of keeping threads alive.
final class StopSignal: @unchecked Sendable {
    /// An `NSCondition`, not `Locked`: `sleep` waits on it until `fire()` wakes it.
    private let condition = NSCondition()
    private var stopped = false

    /// Whether `fire()` has been called.
    var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return stopped
    }

    /// Sets the flag and wakes all sleepers.
    func fire() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    /// Sleeps for `seconds` or until the signal fires. Returns false if it fired.
    @discardableResult
    func sleep(_ seconds: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: max(0, seconds))
        condition.lock()
        defer { condition.unlock() }
        while !stopped {
            if !condition.wait(until: deadline) { break }
        }
        return !stopped
    }
}

import Foundation

/// The one deadline of the package: a point on the monotonic clock (`DispatchTime`, immune to
/// wall-clock changes) by which something must be done. The SDK bounds a whole download with
/// it (`DownloadOptions.deadline`); the agent bounds a model's attempts, retries included.
///
/// ```swift
/// let deadline = Deadline(in: 30)
/// try await deadline.pause(2, orThrow: tooSlow)   // sleeps 2 s, or until the deadline
/// if deadline.hasPassed { throw tooSlow }
/// ```
package struct Deadline: Sendable, Hashable, Comparable {
    /// Nanoseconds of `DispatchTime.now().uptimeNanoseconds` at the deadline.
    package let uptimeNanoseconds: UInt64

    /// The deadline at a point of the monotonic clock.
    package init(uptimeNanoseconds: UInt64) { self.uptimeNanoseconds = uptimeNanoseconds }

    /// The deadline `seconds` from now (0 when negative).
    package init(in seconds: TimeInterval) {
        uptimeNanoseconds = Self.now + UInt64(max(0, seconds) * 1e9)
    }

    /// The monotonic clock, in nanoseconds.
    package static var now: UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// Whether the deadline has come.
    package var hasPassed: Bool { Self.now >= uptimeNanoseconds }

    /// Seconds left (0 once it has passed).
    package var remaining: TimeInterval {
        let now = Self.now
        return now >= uptimeNanoseconds ? 0 : Double(uptimeNanoseconds - now) / 1e9
    }

    /// Sleeps `seconds`, never past the deadline.
    /// - Throws: `expired()` when the deadline has already passed; `CancellationError`.
    package func pause(_ seconds: TimeInterval, orThrow expired: @autoclosure () -> any Error) async throws {
        let now = Self.now
        guard now < uptimeNanoseconds else { throw expired() }
        try await Task.sleep(nanoseconds: min(UInt64(max(0, seconds) * 1e9), uptimeNanoseconds - now))
    }

    package static func < (a: Deadline, b: Deadline) -> Bool { a.uptimeNanoseconds < b.uptimeNanoseconds }
}

extension Optional where Wrapped == Deadline {
    /// Sleeps `seconds`, never past the deadline when there is one.
    /// - Throws: `expired()` when the deadline has already passed; `CancellationError`.
    package func pause(_ seconds: TimeInterval, orThrow expired: @autoclosure () -> any Error) async throws {
        if let deadline = self { return try await deadline.pause(seconds, orThrow: expired()) }
        try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
    }
}

extension Duration {
    /// The duration in seconds (a backoff's wait for `Deadline.pause`).
    package var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}

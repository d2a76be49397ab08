import Foundation

/// The one backoff of the package: how long to wait before attempt `n + 1` after attempt `n`
/// failed. Exponential (`base`, doubled per attempt, capped at `cap`) with a random extra of up
/// to `jitter` of it, and a server's `Retry-After` honoured up to a cap with a random spread
/// after it. The SDK's resumptions use it without jitter; the agent's `RetryPolicy`
/// configures it from the manifest's `policies.retry`.
///
/// ```swift
/// let backoff = Backoff(base: .milliseconds(250), cap: .seconds(4))
/// backoff.delay(after: 3)          // 1 s
/// ```
package struct Backoff: Sendable, Hashable {
    /// The wait after the first failed attempt.
    package var base: Duration
    /// The longest wait.
    package var cap: Duration
    /// The random fraction added to a wait (0.25 = up to +25 %); 0 for none.
    package var jitter: Double

    /// A backoff.
    package init(base: Duration, cap: Duration, jitter: Double = 0) {
        self.base = base
        self.cap = cap
        self.jitter = jitter
    }

    /// The wait after attempt `attempt` (1-based) failed: `base · 2^(attempt − 1)`, at most
    /// `cap`, plus `jitter · random` of it (`random` in 0..<1).
    package func delay(after attempt: Int, random: Double = 0) -> Duration {
        let exponent = min(max(attempt - 1, 0), 30)
        let wait = min(base * (1 << exponent), cap)
        return wait + wait * (jitter * random)
    }

    /// The wait for a server's `Retry-After` of `seconds`: the time it asked for (at most
    /// `cap`), plus a random share of a window of `spread` of it, never shorter than 1 s, so a
    /// fleet told to come back at one instant does not come back at that instant. The
    /// server's time is a minimum, never shortened.
    package static func honouring(retryAfter seconds: Int, cap: Duration, spread: Double, random: Double) -> Duration {
        let honoured = min(.seconds(max(0, seconds)), cap)
        let window = max(.seconds(1), honoured * max(0, spread))
        return honoured + window * random
    }
}

import Foundation
import Manashiki

/// Retries for retryable failures (`APIError.isRetryable`): the SDK's `Backoff` (exponential with jitter),
/// honouring `Retry-After` up to a cap, plus a random spread after it: a registry that tells a
/// whole fleet to come back at one instant (a 429 storm, an HTTP-date `Retry-After`) must not
/// get the fleet back at that instant (`manashiki-bench herd` measures it). The sleep and the randomness are injectable so tests
/// never wait.
///
/// ```swift
/// var retry = RetryPolicy(maxAttempts: 3)
/// retry.sleep = { _ in }          // in tests
/// ```
public struct RetryPolicy: Sendable {
    /// Attempts in all, including the first (1 = no retry).
    public var maxAttempts: Int
    /// The delay before the first retry; doubled for each further one.
    public var baseDelay: Duration
    /// The longest backoff delay.
    public var maxDelay: Duration
    /// The longest `Retry-After` honoured.
    public var maxRetryAfter: Duration
    /// The random fraction added to a backoff delay (0.25 = up to +25 %).
    public var jitter: Double
    /// The random extra wait after a `Retry-After`, as a fraction of it (0.5 = up to +50 %),
    /// and never a window shorter than 1 s: the server's time is a minimum, never exceeded
    /// downwards.
    public var retryAfterSpread: Double
    /// How to wait.
    public var sleep: @Sendable (Duration) async throws -> Void
    /// A random number in 0..<1.
    public var random: @Sendable () -> Double

    /// Creates a policy.
    public init(maxAttempts: Int = 4, baseDelay: Duration = .seconds(1), maxDelay: Duration = .seconds(30),
                maxRetryAfter: Duration = .seconds(60), jitter: Double = 0.25, retryAfterSpread: Double = 0.5,
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.jitter = jitter
        self.retryAfterSpread = retryAfterSpread
        self.sleep = sleep
        self.random = random
    }

    /// The wait before attempt `attempt + 1`, after `error` ended attempt `attempt` (1-based):
    /// the SDK's `Backoff`, configured by this policy.
    public func delay(after attempt: Int, error: APIError) -> Duration {
        if case .rateLimited(let retryAfter?) = error {
            return Backoff.honouring(retryAfter: retryAfter, cap: maxRetryAfter, spread: retryAfterSpread, random: random())
        }
        return Backoff(base: baseDelay, cap: maxDelay, jitter: jitter).delay(after: attempt, random: random())
    }

    /// Runs `operation`, retrying retryable `APIError`s.
    /// - Parameter onRetry: told about each retry (attempt that failed, its error, the wait).
    /// - Throws: `SyncFailure` describing the last error and how many attempts were made.
    public func run<T: Sendable>(
        _ operation: @Sendable () async throws -> T,
        onRetry: @Sendable (Int, APIError, Duration) -> Void = { _, _, _ in }
    ) async throws -> T {
        var attempt = 1
        while true {
            do { return try await operation() } catch {
                if error is CancellationError || Task.isCancelled { throw SyncFailure.cancelled }
                let apiError = error as? APIError
                guard let apiError, apiError.isRetryable else { throw SyncFailure(error, attempts: attempt) }
                guard attempt < maxAttempts else { throw SyncFailure(error, attempts: attempt) }
                let wait = delay(after: attempt, error: apiError)
                onRetry(attempt, apiError, wait)
                do { try await sleep(wait) } catch { throw SyncFailure.cancelled }
                attempt += 1
            }
        }
    }
}

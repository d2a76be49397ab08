import Foundation
import ManashikiCore

/// One bandwidth budget shared by every download that holds it: a token bucket that refills
/// at `bytesPerSecond` and holds at most `burstBytes`.
///
/// Share one limiter between concurrent downloads (through `DownloadOptions.rateLimiter`) and
/// their combined rate stays at the limit, however many run at once. The limit is applied with
/// backpressure: a download asks for its next chunk's bytes before handing the chunk on, and
/// waits when the bucket is empty, so the transport stops reading (the socket's window closes)
/// instead of buffering anything more.
///
/// ```swift
/// var options = DownloadOptions()
/// options.rateLimiter = BandwidthLimiter(bytesPerSecond: 20 << 20)   // 20 MiB/s for all of them
/// async let a = client.downloadModel("a", session: nil, expecting: nil, options: options)
/// async let b = client.downloadModel("b", session: nil, expecting: nil, options: options)
/// ```
///
/// A request larger than the bucket is granted at once and paid for afterwards (the bucket
/// goes into debt), so the next request waits until the debt is repaid: the long-run rate is
/// exact whatever the chunk size. Requests are served in the order they arrive.
public final class BandwidthLimiter: Sendable, Hashable {
    /// The sustained rate.
    public let bytesPerSecond: Int64
    /// The most that may pass at once after an idle period.
    public let burstBytes: Int64

    /// Where the limiter reads the time and how it waits (tests inject a manual clock).
    package struct Clock: Sendable {
        /// Monotonic nanoseconds.
        package var now: @Sendable () -> UInt64
        /// Waits this many nanoseconds (throws when the task is cancelled).
        package var sleep: @Sendable (UInt64) async throws -> Void

        /// The process's monotonic clock and `Task.sleep`.
        package static let system = Clock(now: { DispatchTime.now().uptimeNanoseconds },
                                          sleep: { try await Task.sleep(nanoseconds: $0) })

        package init(now: @escaping @Sendable () -> UInt64, sleep: @escaping @Sendable (UInt64) async throws -> Void) {
            self.now = now
            self.sleep = sleep
        }
    }

    private struct Bucket {
        /// Bytes available (negative: owed).
        var tokens: Double
        /// When `tokens` was last brought up to date.
        var updated: UInt64
    }

    private let clock: Clock
    private let bucket: Locked<Bucket>

    /// A limiter of `bytesPerSecond` (at least 1), with a burst of a tenth of a second's worth
    /// (at least 64 KiB) unless given.
    public convenience init(bytesPerSecond: Int64, burstBytes: Int64? = nil) {
        self.init(bytesPerSecond: bytesPerSecond, burstBytes: burstBytes, clock: .system)
    }

    /// A limiter on `clock`.
    package init(bytesPerSecond: Int64, burstBytes: Int64? = nil, clock: Clock) {
        let rate = max(1, bytesPerSecond)
        self.bytesPerSecond = rate
        self.burstBytes = max(1, burstBytes ?? max(64 << 10, rate / 10))
        self.clock = clock
        bucket = Locked(Bucket(tokens: Double(self.burstBytes), updated: clock.now()))
    }

    /// Takes `bytes` from the budget, waiting first if the budget is spent. When the wait is
    /// cancelled the bytes are given back and `CancellationError` is thrown.
    public func acquire(_ bytes: Int) async throws {
        guard bytes > 0 else { return }
        let wait = reserve(bytes)
        guard wait > 0 else { return }
        do {
            try await clock.sleep(wait)
        } catch {
            bucket.withLock { $0.tokens += Double(bytes) }
            throw error
        }
    }

    /// Takes `bytes` now and returns how long (nanoseconds) the caller must wait before using them.
    package func reserve(_ bytes: Int) -> UInt64 {
        let now = clock.now()
        let rate = Double(bytesPerSecond), burst = Double(burstBytes)
        return bucket.withLock { b -> UInt64 in
            if now > b.updated {
                b.tokens = min(burst, b.tokens + Double(now - b.updated) * rate / 1e9)
                b.updated = now
            }
            b.tokens -= Double(bytes)
            return b.tokens >= 0 ? 0 : UInt64((-b.tokens / rate * 1e9).rounded(.up))
        }
    }

    /// Limiters are equal only to themselves: two with the same rate are two budgets.
    public static func == (a: BandwidthLimiter, b: BandwidthLimiter) -> Bool { a === b }

    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

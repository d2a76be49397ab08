import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's one polling loop for a file lock (`FileLock`): each `next()` tries a
/// non-blocking `flock` once and says whether the wait is over or how long to sleep before the
/// next try. The caller only sleeps, blocking its thread (`FileLock.lock(_:waitingUpTo:)`) or
/// suspending its task (`FileLock.lock(_:waitingUpTo:pollInterval:sleep:)`), so both waits
/// share every decision: `EINTR` retried, `EWOULDBLOCK` polled, any other error a file
/// system without locks, and the last step cut to the deadline.
///
/// Polling rather than a blocking `flock`: a blocked `flock` cannot be given a deadline or
/// cancelled, and would hold a thread of Swift's cooperative pool.
struct LockPoll {
    /// One step of the loop.
    enum Step: Equatable {
        /// The wait is over.
        case done(FileLock.Outcome)
        /// Sleep this long, then call `next()` again.
        case sleep(Duration)
    }

    /// Between tries of a blocking wait.
    static let defaultInterval: Duration = .milliseconds(10)

    private let fd: Int32
    private let operation: Int32
    private let wait: Duration
    private let interval: Duration
    private var waited: Duration = .zero

    init(_ fd: Int32, _ mode: FileLock.Mode, wait: Duration, interval: Duration) {
        self.fd = fd
        self.operation = mode.operation | LOCK_NB
        self.wait = wait
        self.interval = interval
    }

    /// Tries once; `.sleep` counts the step as waited (a poll's time is the sum of its sleeps,
    /// so a test's injected sleep needs no clock).
    mutating func next() -> Step {
        while flock(fd, operation) != 0 {
            let code = errno
            if code == EINTR { continue }
            guard code == EWOULDBLOCK || code == EAGAIN else { return .done(.unsupported(code)) }
            guard waited < wait else { return .done(.held) }
            let step = min(max(interval, .milliseconds(1)), wait - waited)
            waited += step
            return .sleep(step)
        }
        return .done(.locked)
    }

    /// Sleeps this thread for `step` (a blocking wait's sleep).
    static func block(_ step: Duration) {
        let (seconds, attoseconds) = step.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}

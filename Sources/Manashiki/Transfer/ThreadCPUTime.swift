#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The CPU time the calling thread has used (`CLOCK_THREAD_CPUTIME_ID`; Linux, and Apple
/// platforms since macOS 10.12 and iOS 10): what a piece of work cost in CPU, whatever else the
/// machine runs meanwhile (wall time includes waiting for a core on a loaded machine).
enum ThreadCPUTime {
    /// Nanoseconds of CPU this thread has used.
    static var now: UInt64 {
        var ts = timespec()
        guard clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 else { return 0 }
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Runs `body` and adds the CPU time it used to `total`.
    static func measure<T>(_ total: inout UInt64, _ body: () throws -> T) rethrows -> T {
        let start = now
        defer { total &+= now &- start }
        return try body()
    }
}

import Foundation

/// `sync --every 6h --jitter 10m`: runs now, then waits the interval plus a random 0…jitter
/// before each next run, until cancelled. For hosts without systemd timers or cron.
package struct LoopScheduler: Sendable {
    /// The interval between runs.
    package var interval: Duration
    /// The largest random extra wait.
    package var jitter: Duration
    /// A random number in 0..<1 (injectable for tests).
    package var random: @Sendable () -> Double
    /// How to wait (injectable for tests); throws when cancelled.
    package var sleep: @Sendable (Duration) async throws -> Void

    /// Creates a scheduler.
    package init(interval: Duration, jitter: Duration = .zero,
                random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) },
                sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) {
        self.interval = interval
        self.jitter = jitter
        self.random = random
        self.sleep = sleep
    }

    /// The wait before the next run: `interval + jitter × random()`, whole milliseconds.
    package func nextDelay() -> Duration {
        let extra = JSONEventWriter.seconds(jitter) * min(max(random(), 0), 1)
        return interval + .milliseconds(Int64((extra * 1000).rounded(.down)))
    }

    /// Runs `body` now and after each delay until the task is cancelled or `body` returns
    /// false; `onWait` is told each wait before it starts. Returns how many runs were made.
    @discardableResult
    package func run(onWait: @Sendable (Duration) -> Void = { _ in }, _ body: @Sendable () async -> Bool) async -> Int {
        var runs = 0
        while !Task.isCancelled {
            runs += 1
            guard await body(), !Task.isCancelled else { break }
            let delay = nextDelay()
            onWait(delay)
            do { try await sleep(delay) } catch { break }
        }
        return runs
    }
}

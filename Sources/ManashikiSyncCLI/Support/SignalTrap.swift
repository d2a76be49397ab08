import Foundation
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Catches SIGINT and SIGTERM with `DispatchSource` handlers: the first one calls `onSignal`
/// (which cancels the run, so the SDK removes its temporary files); a second one exits at once.
package final class SignalTrap: @unchecked Sendable {
    private let lock = NSLock()
    private var sources: [any DispatchSourceSignal] = []
    private var caught: Int32?

    /// Installs handlers for `signals` (default SIGINT and SIGTERM) and ignores SIGPIPE.
    package init(signals: [Int32] = [SIGINT, SIGTERM], onSignal: @escaping @Sendable (Int32) -> Void) {
        Foundation.signal(SIGPIPE, SIG_IGN)
        for number in signals {
            Foundation.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                self.lock.lock()
                let first = self.caught == nil
                if first { self.caught = number }
                self.lock.unlock()
                if first { SignalTrap.record(number) }
                if first { onSignal(number) } else { _exit(128 + number) }
            }
            source.resume()
            sources.append(source)
        }
    }

    private static let processLock = NSLock()
    nonisolated(unsafe) private static var processCaught: Int32?

    private static func record(_ number: Int32) {
        processLock.lock(); defer { processLock.unlock() }
        if processCaught == nil { processCaught = number }
    }

    /// The exit code for the first signal any trap in this process caught (nil if none), so
    /// that summaries written before the trap is consulted name the right status (143 for
    /// SIGTERM, not 130).
    package static var caughtExitCode: ExitCode? {
        processLock.lock(); defer { processLock.unlock() }
        switch processCaught {
        case SIGINT?: return .interrupted
        case SIGTERM?: return .terminated
        default: return nil
        }
    }

    /// The first signal caught, if any.
    package var signal: Int32? {
        lock.lock(); defer { lock.unlock() }
        return caught
    }

    /// The exit code for the signal caught: 130 for SIGINT, 143 for SIGTERM.
    package var exitCode: ExitCode? {
        switch signal {
        case SIGINT?: return .interrupted
        case SIGTERM?: return .terminated
        default: return nil
        }
    }

    /// Removes the handlers.
    package func cancel() {
        lock.lock(); defer { lock.unlock() }
        sources.forEach { $0.cancel() }
        sources.removeAll()
    }
}

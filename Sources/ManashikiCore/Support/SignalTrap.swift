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
/// (`manashiki-sync` cancels its run, so the SDK removes its temporary files;
/// `manashiki-registry` stops serving); a second one exits at once unless `exitsOnRepeat` is
/// false. The one signal trap of `manashiki-sync` and `manashiki-registry`.
///
/// With `exitAfter`, a process that has not ended that long after the first signal exits
/// anyway (status 128 + the signal, after writing `exitMessage` to standard error): whatever a
/// run is blocked in (a system call no cancellation reaches), a signal ends it. The kernel
/// releases its file locks with it; what it wrote durably (kept partials and their sidecars)
/// stays.
package final class SignalTrap: Sendable {
    private let state = Locked<(sources: [any DispatchSourceSignal], caught: Int32?)>(([], nil))

    /// Installs handlers for `signals` (default SIGINT and SIGTERM) and ignores SIGPIPE.
    package init(signals: [Int32] = [SIGINT, SIGTERM], exitsOnRepeat: Bool = true, exitAfter grace: Duration? = nil,
                 exitMessage: String = "", onSignal: @escaping @Sendable (Int32) -> Void) {
        Foundation.signal(SIGPIPE, SIG_IGN)
        var sources: [any DispatchSourceSignal] = []
        for number in signals {
            Foundation.signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [weak self] in
                guard let self else { return }
                let first = self.state.withLock { state in
                    guard state.caught == nil else { return false }
                    state.caught = number
                    return true
                }
                if first {
                    SignalTrap.processCaught.withLock { if $0 == nil { $0 = number } }
                    if let grace { SignalTrap.exit(128 + number, after: grace, saying: exitMessage) }
                    onSignal(number)
                } else if exitsOnRepeat {
                    _exit(128 + number)
                }
            }
            source.resume()
            sources.append(source)
        }
        state.withLock { $0.sources = sources }
    }

    private static let processCaught = Locked<Int32?>(nil)

    /// Exits with `status` after `grace`, unless the process ended first.
    private static func exit(_ status: Int32, after grace: Duration, saying message: String) {
        let (seconds, attoseconds) = grace.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) {
            if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
            _exit(status)
        }
    }

    /// The first signal any trap in this process caught (nil if none), so that summaries
    /// written before the trap is consulted name the right one.
    package static var firstCaughtInProcess: Int32? { processCaught.current }

    /// The first signal this trap caught, if any.
    package var signal: Int32? { state.withLock { $0.caught } }

    /// Removes the handlers.
    package func cancel() {
        state.withLock { state in
            state.sources.forEach { $0.cancel() }
            state.sources.removeAll()
        }
    }
}

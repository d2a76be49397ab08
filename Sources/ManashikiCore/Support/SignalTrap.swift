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
package final class SignalTrap: Sendable {
    private let state = Locked<(sources: [any DispatchSourceSignal], caught: Int32?)>(([], nil))

    /// Installs handlers for `signals` (default SIGINT and SIGTERM) and ignores SIGPIPE.
    package init(signals: [Int32] = [SIGINT, SIGTERM], exitsOnRepeat: Bool = true, onSignal: @escaping @Sendable (Int32) -> Void) {
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

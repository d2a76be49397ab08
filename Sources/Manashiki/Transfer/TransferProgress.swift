import Foundation
import ManashikiCore

/// Adds up what every part of a transfer has written (and holds in its block) and reports it
/// to the caller's `progress` closure: never backwards (except when the transfer starts over
/// from byte 0), never beyond the total, one report at a time.
final class TransferProgress: Sendable {
    private struct State {
        var written: Int64 = 0
        var buffered: [Int: Int64] = [:]
        var total: Int64?
        var reported: Int64 = 0
    }

    private let callback: (@Sendable (Int64, Int64?) -> Void)?
    private let state = Locked(State())

    init(_ callback: (@Sendable (Int64, Int64?) -> Void)?) { self.callback = callback }

    /// Bytes written to the partial file so far.
    var written: Int64 { state.withLock { $0.written } }

    /// Starts from `written` bytes already on disk (a kept partial), total `total`.
    func start(at written: Int64, total: Int64?) {
        state.withLock { s in
            s = State(written: written, total: total, reported: written)
        }
    }

    /// The artifact's size as the storage host declared it (nil: it did not).
    func declare(total: Int64?) { state.withLock { $0.total = total } }

    /// Part `part` wrote `count` more bytes (and holds `buffered` not yet written); reports.
    func wrote(_ count: Int64, part: Int, buffered: Int64 = 0) {
        update(part: part, buffered: buffered) { $0.written += count }
    }

    /// Part `part` holds `buffered` bytes not yet written; reports them as arrived.
    func holds(_ buffered: Int64, part: Int) { update(part: part, buffered: buffered) { _ in } }

    private func update(part: Int, buffered: Int64, _ change: (inout State) -> Void) {
        state.withLock { s in
            change(&s)
            s.buffered[part] = buffered == 0 ? nil : buffered
            var value = s.written + s.buffered.values.reduce(0, +)
            if let total = s.total { value = min(value, total) }
            guard value >= s.reported else { return }
            s.reported = value
            // Called under the lock: reports from parallel parts never overtake each other.
            callback?(value, s.total)
        }
    }

    /// Everything written was discarded (the transfer starts over from byte 0).
    func restart() {
        state.withLock { s in
            s = State(total: s.total)
        }
    }
}

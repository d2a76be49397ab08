import Foundation
import Dispatch
import Manashiki
import ManashikiCore

/// Records model uses off the caller's thread: taking and releasing a `ModelLease` (which an
/// app may do on its main thread, or in a `deinit` wherever the lease is dropped) only notes
/// the use here; one serial background queue writes it to the store's usage file
/// (`StoreUsage.record`: a short file lock and two flushes). Uses noted while a write is
/// pending are merged into it, so a burst of leases costs one write.
final class UsageRecorder: Sendable {
    /// The process's recorder.
    static let shared = UsageRecorder()

    private let queue = DispatchQueue(label: "manashiki.usage-recorder", qos: .utility)
    /// Uses noted and not yet handed to a write, by store.
    private let pending = Locked<[StoreLayout: [String: Date]]>([:])

    /// Notes a use of `modelId` at `date` in `layout`'s store; returns at once.
    func record(_ modelId: String, at date: Date = Date(), in layout: StoreLayout) {
        let scheduled = pending.withLock { pending -> Bool in
            let first = pending[layout] == nil
            pending[layout, default: [:]][modelId] = max(date, pending[layout]?[modelId] ?? date)
            return !first
        }
        if !scheduled { queue.async { self.write(layout) } }
    }

    /// Returns once every use noted before the call has been written (or failed to be: uses
    /// are best effort, like the `try?` they replace).
    func waitUntilWritten() async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
    }

    private func write(_ layout: StoreLayout) {
        guard let uses = pending.withLock({ $0.removeValue(forKey: layout) }), !uses.isEmpty else { return }
        try? StoreUsage.record(uses, in: layout)
    }
}

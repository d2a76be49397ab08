import Foundation
import ManashikiCore

/// Lets one download of a model into a store run at a time in this process, and hands the
/// result of a finished one to the calls that waited for it.
///
/// Two tasks that download the same model at once (two views, or a view and a restore) would
/// otherwise each transfer the whole artifact and install it twice. A call that finds another
/// running waits (cancellably); when that one succeeds and installed the digest the waiter
/// expects (a registry download resolves its own ticket before it waits, so its key and session
/// are still checked), with the file unchanged, the waiter returns that copy without a transfer.
/// `ArtifactDownloader.download` holds the gate around every transfer, whatever its source.
final class DownloadGate: Sendable {
    static let shared = DownloadGate()

    private struct Waiter {
        let id: UInt64
        let continuation: CheckedContinuation<DownloadedModel?, any Error>
    }
    private struct Slot {
        var waiters: [Waiter] = []
    }
    private struct State {
        var slots: [String: Slot] = [:]
        var nextID: UInt64 = 0
    }
    private let state = Locked(State())

    /// Takes the slot of `key`, waiting while another call holds it. Returns what the previous
    /// holder installed if this call waited for one that succeeded, else nil.
    /// - Throws: `CancellationError` when the task is cancelled while waiting.
    func acquire(_ key: String) async throws -> DownloadedModel? {
        let id: UInt64? = state.withLock { s in
            if s.slots[key] == nil {
                s.slots[key] = Slot()
                return nil
            }
            s.nextID += 1
            return s.nextID
        }
        guard let id else { return nil }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<DownloadedModel?, any Error>) in
                let cancelled = state.withLock { s -> Bool in
                    if Task.isCancelled { return true }
                    s.slots[key]?.waiters.append(Waiter(id: id, continuation: continuation))
                    return false
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { s in
                guard let i = s.slots[key]?.waiters.firstIndex(where: { $0.id == id }) else { return nil }
                return s.slots[key]?.waiters.remove(at: i)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Gives the slot to the next waiter (with `result`, the model this holder installed, or nil
    /// if it failed), or frees it.
    func release(_ key: String, result: DownloadedModel?) {
        let next: Waiter? = state.withLock { s in
            guard var slot = s.slots[key] else { return nil }
            if slot.waiters.isEmpty {
                s.slots[key] = nil
                return nil
            }
            let first = slot.waiters.removeFirst()
            s.slots[key] = slot
            return first
        }
        next?.continuation.resume(returning: result)
    }
}

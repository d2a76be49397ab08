import Foundation
import Manashiki
import ManashikiCore

/// The exclusive side of a lease: held by an eviction for the moment it deletes the model.
final class EvictionGuard: Sendable {
    private let lock: FileLock

    private init(lock: FileLock) { self.lock = lock }

    /// Takes the exclusive lock of `modelId`'s lease without waiting; nil when a lease is held
    /// (or the lease file cannot be opened: the model is then treated as in use).
    /// A model never leased has no lease file: the guard then holds a new one, so a lease taken
    /// meanwhile waits for the delete and then finds the model gone.
    static func take(_ modelId: String, _ layout: StoreLayout) -> EvictionGuard? {
        guard let leases = try? layout.openLeases(creating: true),
              let lock = try? FileLock(StoreLayout.leaseFileName(modelId), in: leases),
              lock.tryLock(.exclusive) else { return nil }
        return EvictionGuard(lock: lock)
    }

    /// Releases the lock. Safe to call more than once.
    func release() { lock.release() }
}

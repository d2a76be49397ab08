import Foundation
import Manashiki

extension Verifier {
    /// What `verifyHoldingLock` found.
    package enum LockedVerification: Sendable {
        /// The verification. `unlocked` is why the lock could not be taken, when it could not
        /// and the store was verified without it (a read-only store: nobody can write it).
        case report(VerificationReport, unlocked: SyncFailure?)
        /// Another run holds the store's lock.
        case storeBusy
    }

    /// Verifies under the store lock, or without it on a store nobody can write (read-only:
    /// an image layer, a mounted volume); never creates a store that does not exist. The one
    /// verify-with-lock of `verify` and `Reconciler.repair`.
    package static func verifyHoldingLock(_ layout: StoreLayout, expecting expected: [String], timeout: Duration,
                                          pollInterval: Duration = .milliseconds(100),
                                          sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) })
        async -> LockedVerification {
        var lock: StoreLock?
        var unlocked: SyncFailure?
        if FileManager.default.fileExists(atPath: layout.directory.path) {
            do {
                lock = try await StoreLock.acquire(layout, timeout: timeout, pollInterval: pollInterval, sleep: sleep)
                guard lock != nil else { return .storeBusy }
            } catch {
                unlocked = SyncFailure(error)
            }
        }
        defer { lock?.release() }
        return .report(await verify(layout, expecting: expected), unlocked: unlocked)
    }
}

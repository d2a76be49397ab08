import Foundation

/// What `Reconciler.repair(onVerified:onEvent:)` did: the verification before, the sync that downloaded
/// the damaged models again (nil when nothing was damaged or the run stopped before it), and
/// the verification after.
public struct RepairReport: Sendable, Equatable {
    /// The store as found.
    public var before: VerificationReport
    /// The sync of the damaged models only (no prunes, no upgrades of healthy models).
    public var sync: SyncReport?
    /// The store after the repair (equal to `before` when nothing was repaired).
    public var after: VerificationReport
    /// A failure that stopped the repair before or instead of the sync (the store is locked by
    /// another run, or cannot be written).
    public var failure: SyncFailure?
    /// Whether another run held the store's lock.
    public var storeBusy: Bool

    /// Creates a report.
    public init(before: VerificationReport, sync: SyncReport? = nil, after: VerificationReport, failure: SyncFailure? = nil, storeBusy: Bool = false) {
        self.before = before
        self.sync = sync
        self.after = after
        self.failure = failure
        self.storeBusy = storeBusy
    }


    /// The models that were damaged and are intact now.
    public var repaired: [String] {
        before.damagedModelIds.filter { if case .ok = after.files[$0] { return true } else { return false } }
    }

    /// Whether every recorded file is intact after the repair.
    public var isHealthy: Bool { failure == nil && !storeBusy && after.isHealthy }
}

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
    /// The publisher signatures of the intact models as found (`SignatureAudit`; empty without
    /// `trust.modelSigning`).
    public var signaturesBefore: [String: SignatureAudit.Verdict]
    /// The same after the repair: a model whose signature is still missing or refused is here
    /// as such (its file stays, never kept as verified).
    public var signaturesAfter: [String: SignatureAudit.Verdict]

    /// Creates a report.
    public init(before: VerificationReport, sync: SyncReport? = nil, after: VerificationReport, failure: SyncFailure? = nil, storeBusy: Bool = false,
                signaturesBefore: [String: SignatureAudit.Verdict] = [:], signaturesAfter: [String: SignatureAudit.Verdict]? = nil) {
        self.before = before
        self.sync = sync
        self.after = after
        self.failure = failure
        self.storeBusy = storeBusy
        self.signaturesBefore = signaturesBefore
        self.signaturesAfter = signaturesAfter ?? signaturesBefore
    }

    /// The models whose publisher signature was missing or refused before the repair.
    public var unsignedBefore: [String] { signaturesBefore.filter(\.value.isProblem).keys.sorted() }

    /// The models that were damaged (or whose signature was missing or refused) and are intact,
    /// with a signature that verifies when one is needed, now.
    public var repaired: [String] {
        Set(before.damagedModelIds + unsignedBefore).sorted().filter { id in
            guard case .ok = after.files[id] else { return false }
            return signaturesAfter[id]?.isProblem != true
        }
    }

    /// Whether every recorded file is intact after the repair, and every publisher signature
    /// needed verifies.
    public var isHealthy: Bool { failure == nil && !storeBusy && after.isHealthy && !signaturesAfter.values.contains(where: \.isProblem) }
}

import Foundation
import Manashiki

/// How a lock's `signedMetadata` stands against the signed metadata a store trusts
/// (`manashiki-sync lock --check` with `trust.tuf`): whether the lock was made from the same,
/// older or newer metadata. A pure function of the two records; the store's side is read from
/// `<store>/.manashiki/tuf/metadata` (`TUFTrustedState`), without the network.
///
/// Versions that differ are not a problem in themselves: a timestamp is re-signed every few
/// hours, and every sync checks the locked artifacts again against the metadata it refreshes.
/// Only a lock without signed metadata for a manifest that sets `trust.tuf` counts as out of
/// date (`isDifference`): `lock` would check and stamp it.
public struct SignedMetadataComparison: Sendable, Hashable {
    /// How the lock's versions stand against the store's.
    public enum Relation: String, Sendable, Hashable, CaseIterable {
        /// Every top-level role at the same version.
        case same
        /// The lock was made from older metadata than the store trusts (the store refreshed since).
        case older
        /// The lock was made from newer metadata than the store trusts (made elsewhere, or this
        /// store has not synced since).
        case newer
        /// Some roles older, some newer: a repository that was reset, or a lock made against
        /// another repository.
        case mixed
        /// The store trusts no signed metadata yet: nothing to compare with.
        case storeTrustsNone = "store-trusts-none"
        /// The manifest sets `trust.tuf` but the lock records no signed metadata (it was made
        /// without `trust.tuf`).
        case lockHasNone = "lock-has-none"
        /// The lock records signed metadata but the manifest has no `trust.tuf`.
        case notConfigured = "not-configured"
    }

    /// The relation.
    public var relation: Relation
    /// The lock's versions (`LockFile.signedMetadata`).
    public var lock: SignedMetadataVersions?
    /// The versions the store trusts (nil: it trusts none, or the manifest has no `trust.tuf`).
    public var store: SignedMetadataVersions?

    /// Compares `lock` with `store`; nil when there is nothing to compare (no `trust.tuf` and no
    /// signed metadata in the lock).
    public init?(lock: SignedMetadataVersions?, store: SignedMetadataVersions?, tufConfigured: Bool) {
        self.lock = lock
        self.store = tufConfigured ? store : nil
        switch (lock, tufConfigured) {
        case (nil, false): return nil
        case (nil, true): relation = .lockHasNone
        case (_?, false): relation = .notConfigured
        case (let lock?, true):
            guard let store else { relation = .storeTrustsNone; return }
            relation = Self.relation(lock, store)
        }
    }

    private static func relation(_ lock: SignedMetadataVersions, _ store: SignedMetadataVersions) -> Relation {
        let pairs = zip(lock.ordered, store.ordered)
        let older = pairs.contains { $0 < $1 }, newer = pairs.contains { $0 > $1 }
        switch (older, newer) {
        case (false, false): return .same
        case (true, false): return .older
        case (false, true): return .newer
        case (true, true): return .mixed
        }
    }

    /// Whether `lock --check` counts it as out of date (exit 10): only `lockHasNone`.
    public var isDifference: Bool { relation == .lockHasNone }

    /// What an operator reads.
    public var message: String {
        let locked = lock?.description ?? "none", trusted = store?.description ?? "none"
        switch relation {
        case .same:
            return "the lock was made from the signed metadata this store trusts (\(locked))"
        case .older:
            return "the lock was made from older signed metadata (\(locked)) than this store trusts (\(trusted)): its artifacts were signed then, and every sync checks them again against the current metadata; run \(Remedy.lock) to record the current versions"
        case .newer:
            return "the lock was made from newer signed metadata (\(locked)) than this store trusts (\(trusted)): this store has not synced since; its next sync refreshes the metadata and refuses any locked artifact no longer signed"
        case .mixed:
            return "the lock's signed metadata (\(locked)) is older in some roles and newer in others than this store's (\(trusted)): a repository that was reset, or a lock made against another one; run \(Remedy.lock) on this machine"
        case .storeTrustsNone:
            return "this store trusts no signed metadata yet (no sync with trust.tuf has run on it), so the lock's (\(locked)) cannot be compared; the first sync refreshes from the pinned root"
        case .lockHasNone:
            return "the lock records no signed metadata: it was made without trust.tuf; run \(Remedy.lock) so that every locked artifact is checked against the signed metadata"
        case .notConfigured:
            return "the lock records signed metadata (\(locked)), but the manifest has no trust.tuf: syncs do not check signatures"
        }
    }
}

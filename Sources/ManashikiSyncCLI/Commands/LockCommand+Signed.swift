import Foundation
import Manashiki
import ManashikiSync

extension LockCommand {
    /// How the lock's signed metadata stands against what the store trusts (read from the
    /// store, no network); nil without `trust.tuf` and without recorded versions.
    func signedComparison(_ lock: LockFile, manifest: Manifest) -> SignedMetadataComparison? {
        let directory = StoreLayout(directory: manifest.storeDirectory).tufMetadataDirectory
        let trusted = manifest.trust.tuf == nil ? nil : SignedMetadataVersions(TUFTrustedState(store: TUFMetadataStore(directory: directory)))
        return SignedMetadataComparison(lock: lock.signedMetadata, store: trusted, tufConfigured: manifest.trust.tuf != nil)
    }

    /// Says how the versions stand: a line when they are the same, a warning when they differ
    /// (the lock is still good), an error when the lock has none for a manifest that wants them.
    func report(_ comparison: SignedMetadataComparison?) {
        guard let comparison, !context.global.json, context.global.verbosity > .quiet else { return }
        let text = "signed metadata: \(comparison.message)"
        switch comparison.relation {
        case .same: context.console.line(text)
        case .lockHasNone: context.console.error(text)
        default: context.console.warning(text)
        }
    }
}

/// `lock --check`'s `signedMetadata`: how the lock's versions stand against the store's.
struct SignedComparisonFields: Encodable, Sendable {
    /// `same`, `older`, `newer`, `mixed`, `store-trusts-none`, `lock-has-none`, `not-configured`.
    var relation: String
    /// The lock's versions (`root`, `timestamp`, `snapshot`, `targets`).
    @Null var lock: SignedMetadataVersions?
    /// The versions the store trusts.
    @Null var store: SignedMetadataVersions?
    /// What an operator reads.
    var message: String

    init(_ comparison: SignedMetadataComparison) {
        relation = comparison.relation.rawValue
        lock = comparison.lock
        store = comparison.store
        message = TextSanitizer.oneLine(comparison.message)
    }
}

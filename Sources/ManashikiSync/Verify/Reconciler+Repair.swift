import Foundation
import Manashiki

extension Reconciler {
    /// Re-hashes the store offline, then downloads again every model that is corrupt, missing
    /// (a deleted store: every model the manifest lists for this device) or unreadable, and
    /// verifies again. Healthy models are not touched, nothing is pruned or upgraded.
    ///
    /// ```swift
    /// let repair = await Reconciler(manifest: manifest, apiKey: key).repair()
    /// print(repair.repaired, repair.after.isHealthy)
    /// ```
    /// - Parameters:
    ///   - onVerified: called once with the first verification when it found damage, before
    ///     anything is downloaded (so a UI or log shows what is wrong before the repair's events).
    ///   - onEvent: the events of the repairing sync, as `run(onEvent:)` reports them.
    public func repair(onVerified: (@Sendable (VerificationReport) -> Void)? = nil,
                       onEvent: (@Sendable (SyncEvent) -> Void)? = nil) async -> RepairReport {
        let layout = StoreLayout(directory: manifest.storeDirectory)
        let platform = (options.device ?? manifest.device ?? .current).platform
        let before: VerificationReport
        switch await verifyHoldingLock(layout, platform: platform) {
        case .report(let report, _): before = report
        case .storeBusy: return RepairReport(before: .empty, after: .empty, storeBusy: true)
        }
        let damaged = Set(before.damagedModelIds)
        guard !damaged.isEmpty else { return RepairReport(before: before, after: before) }
        onVerified?(before)

        // Forget what the state says about the damaged files so the sync re-hashes and replaces
        // them (missing ones are downloaded anyway); what was forgotten is put back for those
        // the sync could not install, so they stay reported damaged.
        var forgotten: [String: StoreState.Installed] = [:]
        do {
            guard let lock = try await StoreLock.acquire(layout, timeout: options.lockTimeout, pollInterval: options.lockPollInterval,
                                                         sleep: options.sleep) else {
                return RepairReport(before: before, after: before, storeBusy: true)
            }
            if case .loaded(var state) = StateFile.read(layout) {
                for id in damaged { forgotten[id] = state.models.removeValue(forKey: id) }
                try StateFile.write(state, to: layout)
            }
            lock.release()
        } catch {
            return RepairReport(before: before, after: before, failure: SyncFailure(error))
        }
        var subset = manifest
        subset.models = manifest.models.filter { damaged.contains($0.id) }
        subset.store.prune.mode = .off
        var repairOptions = options
        repairOptions.dryRun = false
        let sync = await Reconciler(manifest: subset, registry: registry, options: repairOptions).run(onEvent: onEvent)
        if sync.outcome == .storeBusy { return RepairReport(before: before, sync: sync, after: before, storeBusy: true) }
        if let failure = await restore(forgotten, layout) { return RepairReport(before: before, sync: sync, after: before, failure: failure) }
        switch await verifyHoldingLock(layout, platform: platform) {
        case .report(let after, _): return RepairReport(before: before, sync: sync, after: Self.unrepaired(before, after))
        case .storeBusy: return RepairReport(before: before, sync: sync, after: before, storeBusy: true)
        }
    }

    /// `after`, with each model that was damaged before and that the repair did not install
    /// still damaged: a model of a deleted store whose download failed is still missing, not
    /// "not installed" (which a verify counts as healthy).
    static func unrepaired(_ before: VerificationReport, _ after: VerificationReport) -> VerificationReport {
        var report = after
        for id in before.damagedModelIds {
            switch after.files[id] {
            case nil, .unknown?: report.files[id] = before.files[id]
            default: break
            }
        }
        return report
    }

    /// Puts back the state records of `forgotten` models the repairing sync did not record
    /// again (their download failed): a file that could not be repaired stays known as
    /// damaged instead of becoming "unknown" (and so never repaired). Nil, or the failure.
    private func restore(_ forgotten: [String: StoreState.Installed], _ layout: StoreLayout) async -> SyncFailure? {
        guard !forgotten.isEmpty else { return nil }
        do {
            guard let lock = try await StoreLock.acquire(layout, timeout: options.lockTimeout, pollInterval: options.lockPollInterval,
                                                         sleep: options.sleep) else { return nil }
            defer { lock.release() }
            guard case .loaded(var state) = StateFile.read(layout) else { return nil }
            let missing = forgotten.filter { state.models[$0.key] == nil }
            guard !missing.isEmpty else { return nil }
            state.models.merge(missing) { current, _ in current }
            try StateFile.write(state, to: layout)
            return nil
        } catch {
            return SyncFailure(error)
        }
    }

    /// Verifies under the store lock (`Verifier.verifyHoldingLock`) what the manifest lists
    /// for `platform`.
    private func verifyHoldingLock(_ layout: StoreLayout, platform: Platform) async -> Verifier.LockedVerification {
        await Verifier.verifyHoldingLock(layout, expecting: manifest.models.filter { $0.applies(to: platform) }.map(\.id),
                                         timeout: options.lockTimeout, pollInterval: options.lockPollInterval, sleep: options.sleep)
    }
}

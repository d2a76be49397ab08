import Foundation
import Manashiki

extension Reconciler {
    /// Re-hashes the store offline, then downloads again every model that is corrupt, missing
    /// (a deleted store: every model the manifest lists for this device) or unreadable, and
    /// verifies again. Healthy models are not touched, nothing is pruned or upgraded.
    ///
    /// With publisher signatures (`trust.modelSigning`, or `options.publisherTrust`), an intact
    /// model whose stored signature no longer verifies or that has none while one is required
    /// (`SignatureAudit`) is synced too: its signature is looked for again at every source and
    /// `signatureURL`, and the first that verifies is kept; its intact bytes are not fetched
    /// again (a version the sources now serve instead is installed as a sync installs it, signed).
    /// When no signature verifies, the model fails, its file stays and it is still reported
    /// (`signaturesAfter`): an unsigned model is never kept as verified.
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
        let signaturesBefore: [String: SignatureAudit.Verdict]
        do { signaturesBefore = try audit(before, layout) } catch {
            return RepairReport(before: before, after: before, failure: SyncFailure(error))
        }
        let unsigned = Set(signaturesBefore.filter(\.value.isProblem).keys)
        guard !damaged.isEmpty || !unsigned.isEmpty else { return RepairReport(before: before, after: before, signaturesBefore: signaturesBefore) }
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
        subset.models = manifest.models.filter { damaged.contains($0.id) || unsigned.contains($0.id) }
        subset.store.prune.mode = .off
        var repairOptions = options
        repairOptions.dryRun = false
        let sync = await Reconciler(manifest: subset, registry: registry, options: repairOptions).run(onEvent: onEvent)
        var report = RepairReport(before: before, sync: sync, after: before, signaturesBefore: signaturesBefore, signaturesAfter: signaturesBefore)
        if sync.outcome == .storeBusy { report.storeBusy = true; return report }
        if let failure = await restore(forgotten, layout) { report.failure = failure; return report }
        switch await verifyHoldingLock(layout, platform: platform) {
        case .report(let after, _):
            report.after = Self.unrepaired(before, after)
            // The keys and roots were read once already: a failure now leaves the findings before.
            report.signaturesAfter = (try? audit(report.after, layout)) ?? signaturesBefore
        case .storeBusy: report.storeBusy = true
        }
        return report
    }

    /// The publisher signatures of `report`'s intact models, checked offline with the manifest's
    /// (or `options.publisherTrust`'s) keys and roots; empty without publisher signatures.
    private func audit(_ report: VerificationReport, _ layout: StoreLayout) throws -> [String: SignatureAudit.Verdict] {
        try SignatureAudit.check(report, layout: layout, manifest: manifest, trust: options.publisherTrust)
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

import Foundation
import Manashiki

/// What a run moved, counted as installs finish.
struct Tally: Sendable {
    /// Bytes downloaded, not counting bytes reused from kept partials.
    var bytesDownloaded: Int64 = 0
    /// Bytes reused from kept partials.
    var bytesReused: Int64 = 0
    /// Bytes downloaded by source label.
    var bytesBySource: [String: Int64] = [:]
    /// Sources that served bad bytes (rejected), reported as warnings.
    var sourceWarnings: [String] = []

    /// Counts an install from `source`.
    mutating func count(_ model: DownloadedModel, from source: String) {
        bytesDownloaded += model.size - model.resumedFrom
        bytesReused += model.resumedFrom
        bytesBySource[source, default: 0] += model.size - model.resumedFrom
    }
}

/// What the report of a run that got as far as a plan is made of.
struct RunRecord: Sendable {
    var plan: Plan
    var cleaned: [String]
    var bytesHashed: Int64
    var warnings: [String]
    /// Where each bucket source's credentials came from (`SyncReport.sourceCredentials`).
    var sourceCredentials: [String: String] = [:]

    init(observed: Observation, plan: Plan) {
        self.plan = plan
        cleaned = observed.cleaned
        bytesHashed = observed.snapshot.bytesHashed
        warnings = observed.warnings + plan.warnings
    }
}

extension SyncRun {
    /// Records an installed model and persists the state (at most once a second; the run ends
    /// with a final write).
    func record(_ id: String, _ installed: StoreState.Installed) {
        state.withLock { s in
            // The owners who wanted the previous file still want this one.
            var entry = installed
            entry.owners = s.models[id]?.owners
            s.models[id] = entry.claimed(by: owner)
            persist(s)
        }
    }

    /// Forgets a pruned model and persists the state.
    func forget(_ id: String) {
        state.withLock { s in
            s.models[id] = nil
            persist(s)
        }
    }

    /// Writes the state unless it was written less than a second ago. Writing the whole state
    /// after every install made a first sync of N models cost O(N²) (minutes for 2,000 small
    /// models). A crash between writes loses nothing: a model file installed since the last
    /// write is found on the next run, hashed once and adopted by its digest.
    private func persist(_ s: StoreState) {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = lastStateWrite.withLock { last -> Bool in
            guard last == 0 || now - last >= 1_000_000_000 else { return false }
            last = now
            return true
        }
        if due { try? StateFile.write(s, to: layout) }
    }

    /// Forgets files that are gone, updates this owner's claims, trims the record cache, and
    /// writes the state if it changed; returns a warning when it could not be written.
    func finishState(_ observed: Observation) -> [String] {
        let catalog = observed.catalog.byId
        let final: StoreState = state.withLock { s in
            for id in s.models.keys where FileIdentity.of(layout.modelFile(id)) == nil { s.models[id] = nil }
            // Claims: this owner wants what its manifest lists, and no longer what it does not
            // (the last claim goes only with the file, by a prune).
            let listed = Set(manifest.models.map(\.id))
            for (id, entry) in s.models {
                s.models[id] = listed.contains(id) ? entry.claimed(by: owner) : entry.released(by: owner)
            }
            // Keep records only for catalog versions that are not installed (skipped, blocked or
            // failed models are checked again every run). An installed, current model never needs
            // its record again, and caching it made every run decode thousands of records.
            let wanted = Set(manifest.models.compactMap { spec -> String? in
                guard let entry = catalog[spec.id], s.models[spec.id]?.version != entry.version else { return nil }
                return StoreState.recordKey(spec.id, entry.version)
            })
            s.trimRecords(keeping: wanted)
            return s
        }
        guard final != observed.initial else { return [] }
        do { try StateFile.write(final, to: layout) } catch {
            return ["the state file could not be written (\(SyncFailure(error).message)); the next run re-hashes the models"]
        }
        return []
    }

    /// An `ensure` run records a use of each model it was asked for that is installed now.
    func recordEnsuredUse(_ results: [ModelResult]) -> [String] {
        guard let ensuring = options.ensuring else { return [] }
        let installed = Set(results.filter { r in
            switch r.status {
            case .unchanged, .installed, .replaced, .verified: return true
            default: return false
            }
        }.map(\.modelId))
        let used = ensuring.filter(installed.contains)
        do { try StoreUsage.recordUse(of: used, in: layout) } catch {
            return ["the use of \(used.joined(separator: ", ")) could not be recorded (\(SyncFailure(error).message)); evictions may take it earlier than they should"]
        }
        return []
    }

    /// The outcome of applied `results`.
    func outcome(_ results: [ModelResult]) -> SyncOutcome {
        if Task.isCancelled { return .cancelled }
        let problems = results.filter { $0.failure != nil || $0.status == .blocked }
        if problems.isEmpty { return results.contains(where: \.changedStore) ? .changed : .inSync }
        let succeeded = results.contains { r in
            switch r.status {
            // Skipped entries do not apply: a run whose every applicable model failed or is
            // blocked applied nothing.
            case .unchanged, .installed, .replaced, .verified, .pruned: return true
            default: return false
            }
        }
        return succeeded ? .partialFailure : .failed
    }

    /// The report of a run that made a plan.
    func report(_ outcome: SyncOutcome, _ run: RunRecord, _ results: [ModelResult], failure: SyncFailure? = nil) -> SyncReport {
        let tally = tally.current
        var report = SyncReport(outcome: outcome, plan: run.plan, results: results, runFailure: failure, cleanedLeftovers: run.cleaned,
                                bytesDownloaded: tally.bytesDownloaded, bytesHashed: run.bytesHashed, warnings: run.warnings + tally.sourceWarnings)
        report.bytesBySource = tally.bytesBySource
        report.bytesReused = tally.bytesReused
        report.sourceCredentials = run.sourceCredentials
        return report
    }
}

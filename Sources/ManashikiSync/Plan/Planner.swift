import Foundation
import ManashikiCore
import Manashiki

/// Diffs a manifest against a store: a pure function of `PlanInput`.
///
/// ```swift
/// let needed = Planner.recordsNeeded(input)          // fetch these records (or use the cache)
/// input.records = fetched
/// let plan = Planner.plan(input)
/// ```
///
/// The registry serves only the current version of each model, so a requirement is met by the
/// catalog's current version or by the installed one (then it is kept). A catalog version older
/// than the installed one is refused unless the manifest pins exactly that version.
package enum Planner {
    /// The catalog entries whose registry record the plan needs (lifecycle, compatibility and
    /// visibility are checked only for what would be downloaded) and that are not cached.
    package static func recordsNeeded(_ input: PlanInput) -> [ModelEntry] {
        input.manifest.models.compactMap { spec in
            guard case .needsRecord(let target, _) = preliminary(spec, input) else { return nil }
            return input.snapshot.state.record(spec.id, version: target.version) == nil ? target : nil
        }
    }

    /// Builds the plan.
    package static func plan(_ input: PlanInput) -> Plan {
        var items: [PlanItem] = input.manifest.models.map { spec in
            let demanded = input.demanded.contains(spec.id)
            switch preliminary(spec, input) {
            case .final(let item): return optionalSkip(item, spec, demanded: demanded)
            case .needsRecord(let target, let kind): return optionalSkip(finish(spec, target: target, kind: kind, input), spec, demanded: demanded)
            }
        }
        if input.onlyDemanded { items = restrictToDemanded(items, input) } else { items += prunes(input) }
        var (budget, refusal) = fitBudget(&items, input)
        // Clamped: sizes come from documents (an absurd one is refused where it is read, and a
        // total past Int64 stays at its end, which the free-space check below then refuses).
        let bytes = items.compactMap { $0.action.target?.size }.clampedSum()
        // The old file stays until the rename, so every fetched byte needs room at once; a kept
        // partial of the same artifact already holds its prefix (and its space). Evictions run
        // last, so they make no room for the downloads.
        let needed = items.compactMap { item in item.action.target.map { remainingBytes(item.modelId, $0, input) } }.clampedSum()
        if let problem = input.storeWriteProblem { refusal = .storeNotWritable(problem) }
        if refusal == nil, let free = input.freeBytes, needed > free { refusal = .insufficientDiskSpace(needed: needed, available: free) }
        var plan = Plan(items: items, bytesToFetch: bytes, freeBytes: input.freeBytes, refusal: refusal)
        plan.budget = budget
        return plan
    }

    /// The bytes still to fetch for `target`: its size less the longest kept partial of exactly
    /// that artifact (same SHA-256 and size).
    static func remainingBytes(_ modelId: String, _ target: ArtifactTarget, _ input: PlanInput) -> Int64 {
        let kept = (input.partials[modelId] ?? [])
            .filter { $0.sha256 == target.sha256 && $0.size == target.size }
            .map { min(max($0.bytes, 0), target.size) }.max() ?? 0
        return target.size.subtractingClamped(kept)
    }

    // MARK: - Installed files

    /// A model file that is intact.
    struct Healthy {
        var version: String
        var sha256: String
        var size: Int64
        /// Whether the state already records this file (trusted by `stat`).
        var recorded: Bool
    }

    enum Health {
        case absent
        case healthy(Healthy)
        case corrupt(String)
    }

    static func health(_ id: String, _ input: PlanInput) -> Health {
        let snapshot = input.snapshot
        guard let file = snapshot.files[id] else { return .absent }
        let installed = snapshot.state.models[id]
        if let installed, snapshot.isTrusted(id) {
            return .healthy(Healthy(version: installed.version, sha256: installed.sha256, size: installed.size, recorded: true))
        }
        if let sha = file.hashedSHA256 {
            if let installed, installed.sha256 == sha {
                return .healthy(Healthy(version: installed.version, sha256: sha, size: file.identity.size, recorded: false))
            }
            if let entry = input.catalogIndex[id], entry.sha256 == sha {
                return .healthy(Healthy(version: entry.version, sha256: sha, size: file.identity.size, recorded: false))
            }
            return .corrupt(installed == nil
                ? "the file on disk matches no known artifact of this model"
                : "its SHA-256 no longer matches the installed \(installed!.version)")
        }
        if let installed { return .corrupt("its size is \(file.identity.size) bytes, the installed \(installed.version) has \(installed.size)") }
        return .corrupt("the file on disk (\(file.identity.size) bytes) matches no known artifact of this model")
    }

    // MARK: - Decisions

    enum Kind {
        case download
        case replace(from: String?, because: ReplaceCause, fallback: Healthy?)
    }

    enum Preliminary {
        case final(PlanItem)
        case needsRecord(ModelEntry, Kind)
    }

    static func preliminary(_ spec: ModelSpec, _ input: PlanInput) -> Preliminary {
        let id = spec.id
        let platform = input.device.platform
        guard spec.applies(to: platform) else {
            let list = (spec.platforms ?? []).map(\.rawValue).joined(separator: ", ")
            return .final(PlanItem(modelId: id, action: .skip(.filteredOut), reason: "the entry applies to \(list); this device is \(platform)"))
        }
        // An on-demand model is fetched only when asked for; once installed it is kept current.
        if spec.modelClass == .onDemand, input.snapshot.files[id] == nil, !input.demanded.contains(id) {
            return .final(PlanItem(modelId: id, action: .skip(.onDemand), reason: "on demand: installed only when asked for (ensure)"))
        }
        let entry = input.catalogIndex[id]
        func ok(_ version: String, _ sha: String) -> Bool {
            spec.version.isSatisfied(by: version) && (spec.sha256 == nil || spec.sha256 == sha)
        }
        let wanted = spec.sha256.map { "\(spec.version) with sha256 \($0.prefix(12))…" } ?? "\(spec.version)"
        func unsatisfiable(_ entry: ModelEntry, keeping: String?) -> Preliminary {
            let keep = keeping.map { "; the installed \($0) does not satisfy it either and stays" } ?? ""
            return .final(PlanItem(modelId: id, action: .blocked(.pinUnsatisfiable),
                                   reason: "the registry serves \(entry.version) (sha256 \(entry.sha256.prefix(12))…), which does not satisfy \(wanted)\(keep)"))
        }
        func notInCatalog(keeping: String?) -> Preliminary {
            if let problem = input.invalidCatalogEntries[id] {
                let stays = keeping.map { "; the installed \($0) stays untouched" } ?? ""
                return .final(PlanItem(modelId: id, action: .blocked(.invalidCatalogEntry(problem)),
                                       reason: "the registry's catalog entry for this model is invalid (\(problem))\(stays)"))
            }
            let keep = keeping.map { "; the installed \($0) does not satisfy \(wanted) and stays" } ?? ""
            return .final(PlanItem(modelId: id, action: .blocked(.notInCatalog),
                                   reason: "the registry's catalog does not list this model\(keep)"))
        }

        // An invalid catalog entry blocks the model whatever is installed: the registry cannot
        // vouch for any version of it this run (the installed file stays untouched).
        if entry == nil, input.invalidCatalogEntries[id] != nil {
            let installed = input.snapshot.state.models[id]?.version
            return notInCatalog(keeping: installed)
        }
        switch health(id, input) {
        case .absent:
            guard let entry else { return notInCatalog(keeping: nil) }
            guard ok(entry.version, entry.sha256) else { return unsatisfiable(entry, keeping: nil) }
            return .needsRecord(entry, .download)

        case .corrupt(let why):
            guard let entry else { return notInCatalog(keeping: nil) }
            guard ok(entry.version, entry.sha256) else { return unsatisfiable(entry, keeping: nil) }
            return .needsRecord(entry, .replace(from: input.snapshot.state.models[id]?.version, because: .corrupt(why), fallback: nil))

        case .healthy(let installed):
            let keep = keepItem(id, installed)
            if ok(installed.version, installed.sha256) {
                guard let entry else {
                    var item = keep("\(installed.version) satisfies \(wanted)")
                    item.warnings.append("the registry's catalog no longer lists this model")
                    return .final(item)
                }
                if entry.version == installed.version && entry.sha256 == installed.sha256 {
                    return .final(keep("\(installed.version) is current"))
                }
                guard ok(entry.version, entry.sha256) else {
                    return .final(keep("\(installed.version) satisfies \(wanted); the registry serves \(entry.version), which does not"))
                }
                if isOlder(entry.version, than: installed.version) {
                    var item = keep("\(installed.version) satisfies \(wanted)")
                    item.warnings.append("the registry now serves the older \(entry.version); rollback refused (pin \"\(entry.version)\" exactly to roll back)")
                    return .final(item)
                }
                return .needsRecord(entry, .replace(from: installed.version, because: .upgrade, fallback: installed))
            }
            guard let entry else { return notInCatalog(keeping: installed.version) }
            guard ok(entry.version, entry.sha256) else { return unsatisfiable(entry, keeping: installed.version) }
            if isOlder(entry.version, than: installed.version), spec.version.exactVersion.map({ ModelVersion(entry.version) == $0 }) != true {
                return .final(PlanItem(modelId: id, action: .blocked(.rollbackRefused(installed: installed.version, catalog: entry.version)),
                                       reason: "the registry serves \(entry.version), older than the installed \(installed.version); pin \"\(entry.version)\" exactly to roll back"))
            }
            return .needsRecord(entry, .replace(from: installed.version, because: .requirementChanged, fallback: nil))
        }
    }

    /// An optional entry the run cannot deliver is skipped (with a warning saying so) instead of
    /// blocked; a record that could not be fetched stays blocked (a failure of this run, not a
    /// property of the model).
    static func optionalSkip(_ item: PlanItem, _ spec: ModelSpec, demanded: Bool) -> PlanItem {
        guard spec.isOptional, !demanded, case .blocked(let cause) = item.action else { return item }
        if case .recordUnavailable = cause { return item }
        var skipped = item
        skipped.action = .skip(.optional(cause))
        skipped.reason = "optional, not installed: \(item.reason)"
        skipped.warnings.append("optional model not installed: \(item.reason)")
        return skipped
    }

    static func keepItem(_ id: String, _ installed: Healthy) -> (String) -> PlanItem {
        { reason in
            if installed.recorded { return PlanItem(modelId: id, action: .keep(version: installed.version), reason: reason) }
            return PlanItem(modelId: id, action: .verify(version: installed.version, sha256: installed.sha256, size: installed.size),
                            reason: "\(reason); the file was re-hashed and is intact, recording it")
        }
    }

    static func isOlder(_ a: String, than b: String) -> Bool {
        guard let x = ModelVersion(a), let y = ModelVersion(b) else { return false }
        return x < y
    }

    /// Applies the record's lifecycle, compatibility and visibility to a download or replacement.
    static func finish(_ spec: ModelSpec, target entry: ModelEntry, kind: Kind, _ input: PlanInput) -> PlanItem {
        let id = spec.id
        var fallback: Healthy?
        if case .replace(_, _, let f) = kind { fallback = f }
        // When an upgrade cannot happen, an intact installed version that satisfies the manifest stays.
        func stop(_ action: PlanAction, _ reason: String) -> PlanItem {
            if let fallback {
                var item = keepItem(id, fallback)("\(fallback.version) stays")
                item.warnings.append("\(entry.version) is available but not installed: \(reason)")
                return item
            }
            return PlanItem(modelId: id, action: action, reason: reason)
        }
        guard let record = input.records[id], record.version == entry.version else {
            let why = input.recordFailures[id] ?? "the registry record of \(entry.version) was not fetched"
            return stop(.blocked(.recordUnavailable(why)), "cannot check lifecycle and compatibility: \(why)")
        }
        var warnings: [String] = []
        let status = record.lifecycle.status
        if status == .sunset { return stop(.blocked(.sunset), "\(entry.version) is sunset and can no longer be downloaded") }
        guard input.manifest.policies.allowedStatuses.contains(status) else {
            let allowed = input.manifest.policies.allowedStatuses.map(\.rawValue).joined(separator: ", ")
            return stop(.blocked(.lifecycle(status)), "\(entry.version) is \(status); the policies accept \(allowed)")
        }
        if status == .deprecated { warnings.append("\(entry.version) is deprecated; plan a move to its successor") }
        if input.manifest.policies.checkCompatibility {
            let freeMB = input.freeBytes.map { Int($0 / (1 << 20)) }
            let problems = input.device.incompatibilities(with: record.compatibility, freeDiskMB: freeMB)
            if !problems.isEmpty { return stop(.blocked(.incompatible(problems)), "incompatible with this device: " + problems.map(\.description).joined(separator: "; ")) }
        }
        let isPrivate = record.visibility != .public
        if isPrivate {
            let availability = input.sessions[id] ?? (spec.session == nil ? .unavailable("no session source is configured for this private model") : .available)
            if case .unavailable(let why) = availability {
                var item = stop(.blocked(.sessionUnavailable(why)), "private model: \(why)")
                if fallback == nil { item.reason += #"; add "session": {"env": …}, {"file": …}, {"command": […]} or {"mint": {…}}"# }
                return item
            }
        }
        let target = ArtifactTarget(version: entry.version, sha256: entry.sha256, size: entry.size, needsSession: isPrivate)
        switch kind {
        case .download:
            let restoring = input.snapshot.state.models[id] != nil ? " (the recorded file is missing)" : ""
            return PlanItem(modelId: id, action: .download(target), reason: "install \(entry.version)\(restoring)", warnings: warnings)
        case .replace(let from, let because, _):
            let arrow = "\(from ?? "unknown") → \(entry.version)"
            let why: String
            switch because {
            case .upgrade: why = "the registry serves a newer version satisfying \(spec.version)"
            case .requirementChanged: why = "the installed version does not satisfy \(spec.version)\(spec.sha256 == nil ? "" : " with the pinned sha256")"
            case .corrupt(let detail): why = "the file is damaged: \(detail)"
            }
            return PlanItem(modelId: id, action: .replace(from: from, to: target, because: because), reason: "\(arrow): \(why)", warnings: warnings)
        }
    }

    // MARK: - Prunes

    static func prunes(_ input: PlanInput) -> [PlanItem] {
        let policy = input.manifest.store.prune
        guard policy.mode != .off else { return [] }
        let wanted = Set(input.manifest.models.map(\.id))
        let state = input.snapshot.state
        let candidates = input.snapshot.files.keys
            .filter { !wanted.contains($0) && (policy.mode == .all || state.models[$0] != nil) }
            // In a shared store, a model another owner still wants is never a candidate.
            .filter { !(state.models[$0]?.isClaimed(byOtherThan: input.owner) ?? false) }
            .sorted()
        if input.manifest.models.isEmpty && !policy.allowEmptyManifest && !input.forcePrune {
            return candidates.map {
                PlanItem(modelId: $0, action: .blocked(.emptyManifest),
                         reason: "not deleted: the manifest lists no models (set store.prune.allowEmptyManifest to true to empty the store; in code, Reconciler.Options.forcePrune)")
            }
        }
        if candidates.count > policy.maxDeletes && !input.forcePrune {
            return candidates.map {
                PlanItem(modelId: $0, action: .blocked(.pruneLimit(count: candidates.count, max: policy.maxDeletes)),
                         reason: "not deleted: \(candidates.count) files would be pruned, more than store.prune.maxDeletes (\(policy.maxDeletes)); raise it, or allow it for one run with \(Remedy.allowDeletes(candidates.count))")
            }
        }
        return candidates.map { id in
            let version = state.models[id]?.version
            return PlanItem(modelId: id, action: .prune(version: version),
                            reason: "the manifest no longer lists this model\(version.map { " (installed \($0))" } ?? "")")
        }
    }
}

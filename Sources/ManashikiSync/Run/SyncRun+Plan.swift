import Foundation
import Manashiki
import ManashikiCore

extension SyncRun {
    /// The plan for what was observed: the planner's input (sessions, kept partials, record
    /// facts: cached, carried by the catalog's source, or fetched), the pure `Planner`, then
    /// what the sources change (`SourcePlanning.adjust`).
    func makePlan(_ observed: Observation) async -> Plan {
        let catalog = observed.catalog
        var input = PlanInput(manifest: catalog.manifest, device: options.device ?? manifest.device ?? .current, snapshot: observed.snapshot,
                              catalog: catalog.entries, invalidCatalogEntries: observed.invalidEntries, freeBytes: options.freeSpace(layout.directory),
                              forcePrune: options.forcePrune, owner: owner)
        input.storeWriteProblem = layout.writeProblem()?.message
        input.lastUse = observed.lastUse
        input.inUse = observed.inUse
        if let ensuring = options.ensuring {
            input.demanded = Set(ensuring)
            input.onlyDemanded = true
        }
        for kept in StorageDirectory.keptPartials(in: layout) where !kept.inUse {
            guard let sha256 = kept.sha256, let size = kept.size else { continue }
            input.partials[kept.modelId, default: []].append(PartialDownload(sha256: sha256, size: size, bytes: kept.bytes))
        }
        let byId = catalog.byId
        for spec in manifest.models {
            if let entry = byId[spec.id], let cached = observed.initial.record(spec.id, version: entry.version) { input.records[spec.id] = cached }
            if let record = catalog.records[spec.id] { input.records[spec.id] = record }
            input.sessions[spec.id] = session(for: spec, entry: byId[spec.id], fetcher: observed.fetcher)
        }
        let needed = Planner.recordsNeeded(input).filter { input.records[$0.modelId] == nil }
        for entry in needed {
            if let missing = catalogSource.missingRecord(entry) { input.recordFailures[entry.modelId] = missing }
        }
        if case .registry = catalogSource { await fetchRecords(needed, into: &input) }

        let context = FetchContext(fetcher: observed.fetcher, offline: options.offline, fallback: manifest.fallback,
                                   registryServes: catalog.registryServes, unreadable: catalog.unreadable)
        let plan = SourcePlanning.adjust(Planner.plan(input), offline: options.offline, unavailable: { id in
            Self.offlineUnavailable(id, spec: catalog.manifest.models.first { $0.id == id }, context: context)
        }, source: { item in
            switch item.action {
            case .keep, .verify: return "store"
            case .download(let t), .replace(_, let t, _):
                return context.fetcher.expectedSource(sha256: t.sha256, isPrivate: t.needsSession,
                                                      registryAllowed: context.registryRefusal(item.modelId, t) == nil)
            default: return nil
            }
        }, unserved: { id, t in
            let refusal = context.registryRefusal(id, t) ?? RegistryRefusal(reason: "the registry is not tried")
            return ("\(t.version) (sha256 \(t.sha256.prefix(12))…) is not available: \(context.fetcher.whyNoSource(sha256: t.sha256, isPrivate: t.needsSession)); \(refusal.reason)",
                    refusal.instruction)
        })
        plannedRecords.withLock { $0 = input.records }
        return plan
    }

    /// Whether the session token of `spec` can be had. Offline, a private model needs none: it
    /// can come only from a source marked for it; online, neither does one a private bundle holds.
    private func session(for spec: ModelSpec, entry: ModelEntry?, fetcher: ArtifactFetcher) -> SessionAvailability {
        if options.offline {
            return fetcher.eligible(isPrivate: true).isEmpty
                ? .unavailable("offline, private models come only from a bundle marked \"private\": true, and none is")
                : .available
        }
        if spec.session == nil, let entry, fetcher.holdsLocally(entry.sha256, isPrivate: true) { return .available }
        return resolver.availability(spec.session, registry: registry)
    }

    /// Why nothing offline can install `id`.
    private static func offlineUnavailable(_ id: String, spec: ModelSpec?, context: FetchContext) -> String {
        let bundles = context.fetcher.sources.filter { $0.bundle != nil || $0.oci != nil }.map(\.label)
        var why = "offline, no bundle holds an artifact of \(id) satisfying \(spec.map { "\($0.version)" } ?? "the manifest")"
        why += bundles.isEmpty ? " (no bundle source is configured: add one to \"sources\" or pass \(Remedy.bundleDirectory))" : " (searched: \(bundles.joined(separator: ", ")))"
        if !context.unreadable.isEmpty { why += "; unreadable: \(context.unreadable.joined(separator: "; "))" }
        return why
    }

    /// Fetches the records the plan needs, `store.concurrency` at a time, caching them in the state.
    private func fetchRecords(_ needed: [ModelEntry], into input: inout PlanInput) async {
        let fetched = await Concurrently.map(needed, limit: manifest.store.concurrency) { [registry, retry, emit] entry -> (String, Result<ModelRecord, SyncFailure>) in
            do {
                let record = try await retry.run({ try await registry.getModel(entry.modelId) }, onRetry: { attempt, error, wait in
                    emit(.retrying(modelId: entry.modelId, attempt: attempt, delay: wait, reason: error.description))
                })
                return (entry.modelId, .success(record))
            } catch { return (entry.modelId, .failure(SyncFailure(error))) }
        }
        for (id, result) in fetched {
            switch result {
            case .success(let record):
                input.records[id] = record
                state.withLock { $0.cache(record) }
            case .failure(let failure):
                input.recordFailures[id] = failure.description
            }
        }
    }
}

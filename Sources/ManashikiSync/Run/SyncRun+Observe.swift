import Foundation
import Manashiki

/// What a run saw before it plans: the store (state file, files, kept partials), the sources
/// and the catalog.
struct Observation: Sendable {
    /// Leftovers of crashed runs that were removed.
    var cleaned: [String]
    /// Warnings so far (an unusable state file, sources, the catalog).
    var warnings: [String]
    /// The state file as read (empty when missing or unusable).
    var initial: StoreState
    /// The files on disk, hashed where they changed.
    var snapshot: StoreSnapshot
    /// The catalog and what its source said.
    var catalog: CatalogSource.Catalog
    /// Invalid catalog entries of models no valid entry lists, with what is wrong.
    var invalidEntries: [String: String]
    /// The sources, with their indexes read.
    var fetcher: ArtifactFetcher
    /// When each model was last used (`StoreUsage`), read when the manifest has a budget.
    var lastUse: [String: Date] = [:]
    /// Models some process holds a lease on (`ModelLease`), read when the manifest has a budget.
    var inUse: Set<String> = []
    /// The run's trust (`SyncRun.makeTrust`); `.none` when none is configured.
    var trust = RunTrust.none
}

extension SyncRun {
    /// What observing ended with.
    enum Observed {
        /// Ready to plan.
        case observed(Observation)
        /// The run stops here (a newer state file, a catalog that cannot be read).
        case stopped(SyncReport)
    }

    /// Cleans leftovers, reads the state file, reads the sources' indexes and the catalog,
    /// and looks at the files (hashing only those that changed and could be a wanted artifact).
    func observe() async -> Observed {
        let cleaned = options.dryRun ? [] : LeftoverCleaner.clean(layout, keepingPartialsOf: Set(manifest.models.map(\.id)),
                                                                   retention: downloadOptions.partialRetention)
        if !cleaned.isEmpty { emit(.cleanedLeftovers(cleaned)) }
        var warnings: [String] = []
        var initial = StoreState()
        switch StateFile.read(layout) {
        case .missing: break
        case .loaded(let s): initial = s
        case .unusable(let why): warnings.append("\(why); every model file is re-hashed")
        case .newer(let version):
            return .stopped(SyncReport(outcome: .failed, runFailure: SyncFailure(kind: .terminal, message: StateFile.newerFormatMessage(version)),
                                       cleanedLeftovers: cleaned, warnings: warnings))
        }
        state.withLock { $0 = initial }
        let identities = StoreScanner.identities(layout)

        var fetcher = makeFetcher()
        warnings += await fetcher.readIndexes()
        let trust: RunTrust
        do { trust = try makeTrust(fetcher) } catch {
            return .stopped(SyncReport(outcome: .failed, runFailure: SyncFailure(kind: .terminal, message: "trust: \(error)"),
                                       cleanedLeftovers: cleaned, warnings: warnings))
        }
        let catalog: CatalogSource.Catalog
        switch await catalogSource.read(manifest, fetcher: fetcher, registry: registry, retry: retry, emit: emit) {
        case .success(let read): catalog = read
        case .failure(let failure):
            return .stopped(SyncReport(outcome: Task.isCancelled ? .cancelled : .failed, runFailure: failure, cleanedLeftovers: cleaned, warnings: warnings))
        }
        warnings += catalog.warnings
        let byId = catalog.byId
        // An invalid entry blocks only its own model (when the manifest asks for it).
        var invalidEntries: [String: String] = [:]
        for bad in catalog.rejected {
            warnings.append("the registry's catalog has an invalid entry, ignored: \(bad)")
            if let id = bad.modelId, byId[id] == nil { invalidEntries[id] = bad.problem }
        }

        var sizes: [String: Set<Int64>] = [:]
        for id in identities.keys {
            if let e = byId[id] { sizes[id, default: []].insert(e.size) }
            if let s = initial.models[id] { sizes[id, default: []].insert(s.size) }
        }
        let snapshot = await StoreScanner.snapshot(layout, state: initial, identities: identities, candidateSizes: sizes)
        var observation = Observation(cleaned: cleaned, warnings: warnings, initial: initial, snapshot: snapshot, catalog: catalog,
                                      invalidEntries: invalidEntries, fetcher: fetcher)
        observation.trust = trust
        observeUsage(&observation)
        return .observed(observation)
    }

    /// Last uses and leases: what a budget's evictions need (nothing is read without a budget).
    func observeUsage(_ observation: inout Observation) {
        guard manifest.store.budget != nil else { return }
        let (usage, warning) = StoreUsage.read(layout)
        observation.lastUse = usage.lastUse
        if let warning { observation.warnings.append(warning) }
        observation.inUse = ModelLease.held(layout)
    }

    /// The run's sources: `--from` first, then the manifest's, bundle paths resolved.
    func makeFetcher() -> ArtifactFetcher {
        let resolved = (options.extraSources + manifest.sources).map { source -> ArtifactFetcher.ResolvedSource in
            var bundle: BundleLayout?
            if case .bundle(let path) = source.kind { bundle = BundleLayout(directory: manifest.bundleDirectory(path)) }
            var resolved = ArtifactFetcher.ResolvedSource(source: source, bundle: bundle, label: manifest.label(of: source))
            resolved.oci = ociClient(source, label: resolved.label) // OCI/SyncRun+OCI.swift
            resolved.s3 = s3Client(source, label: resolved.label)   // S3/SyncRun+S3.swift
            return resolved
        }
        // Mirrors are fetched over the registry client's transport (its TLS trust and proxies).
        let mirrors = (registry as? ManashikiClient).map { MirrorClient(transport: $0.transport, store: registry.storageDirectory, documentLimits: $0.documentLimits) }
        return ArtifactFetcher(sources: resolved, mirrorClient: mirrors, offline: options.offline,
                               mirrorIdleTimeout: options.mirrorIdleTimeout)
    }
}

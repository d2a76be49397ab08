import Foundation
import Manashiki
import ManashikiCore

/// One run of a `Reconciler`: the side effects around the pure planner, read top to bottom
/// in `run()`: observe (`SyncRun+Observe.swift`, the catalog from `CatalogSource.swift`) →
/// plan (`SyncRun+Plan.swift`) → apply, deletes last (`SyncRun+Apply.swift`) → record
/// (`SyncRun+Record.swift`).
final class SyncRun: Sendable {
    let manifest: Manifest
    let registry: any RegistryClient
    let options: Reconciler.Options
    let retry: RetryPolicy
    let downloadOptions: DownloadOptions
    let layout: StoreLayout
    let resolver: SecretResolver
    /// Where the catalog comes from (the registry, a lock, the bundles).
    let catalogSource: CatalogSource
    /// Who this run claims models for: the option, else the manifest's `store.owner`, else
    /// `StoreOwner.current`.
    let owner: String
    let emit: @Sendable (SyncEvent) -> Void
    /// The state as it is being updated, persisted after each change.
    let state = Locked(StoreState())
    /// When the state file was last written (uptime nanoseconds).
    let lastStateWrite = Locked<UInt64>(0)
    /// What the run moved: bytes downloaded, reused from kept partials and by source; sources
    /// that served bad bytes.
    let tally = Locked(Tally())
    /// The registry records the plan was made with, by model id (their facts are recorded
    /// with each install, for `export`).
    let plannedRecords = Locked<[String: ModelRecord]>([:])

    /// A run of `manifest` against `registry`, each download tuned by `download`; secrets come
    /// from `options.environment`, paths resolve against the manifest's directory.
    init(manifest: Manifest, registry: any RegistryClient, options: Reconciler.Options, retry: RetryPolicy,
         download: DownloadOptions, emit: @escaping @Sendable (SyncEvent) -> Void) {
        self.manifest = manifest
        self.registry = registry
        self.options = options
        self.retry = retry
        downloadOptions = download
        layout = StoreLayout(directory: manifest.storeDirectory)
        resolver = SecretResolver(environment: options.environment, baseDirectory: manifest.baseDirectory)
        catalogSource = CatalogSource(options, manifest)
        owner = options.owner ?? manifest.store.owner ?? StoreOwner.current
        self.emit = emit
    }

    /// Runs under the store's lock (a plan of a store never synced takes none: there is
    /// nothing to protect, and taking it would create `.manashiki/`).
    func perform() async -> SyncReport {
        guard Self.comparablePath(layout.directory) == Self.comparablePath(registry.storageDirectory) else {
            return SyncReport(outcome: .failed, runFailure: SyncFailure(kind: .terminal,
                message: "the registry client installs into \(registry.storageDirectory.path) but the manifest's store is \(layout.directory.path); nothing was changed. A Reconciler records, locks and prunes the manifest's store, so its client must install there: create the ManashikiClient with storageDirectory: manifest.storeDirectory (or use Reconciler(manifest:apiKey:), which does), or set the manifest's store.directory to \(registry.storageDirectory.path)"))
        }
        if options.dryRun && !FileManager.default.fileExists(atPath: layout.lockFile.path) { return await run() }
        let storeLock: StoreLock?
        do {
            storeLock = try await StoreLock.acquire(layout, timeout: options.lockTimeout, pollInterval: options.lockPollInterval, sleep: options.sleep)
        } catch {
            if error is CancellationError || Task.isCancelled { return SyncReport(outcome: .cancelled) }
            return SyncReport(outcome: .failed, runFailure: SyncFailure(error))
        }
        guard let storeLock else {
            return SyncReport(outcome: .storeBusy, runFailure: SyncFailure(kind: .retryable,
                message: StoreLock.heldMessage(layout, waited: options.lockTimeout)))
        }
        defer { storeLock.release() }
        return await run()
    }

    /// The run: observe → plan → apply (deletes last) → record.
    private func run() async -> SyncReport {
        let observed: Observation
        switch await observe() {
        case .observed(let observation): observed = observation
        case .stopped(let report): return report
        }
        let plan = await makePlan(observed)
        emit(.planReady(plan))
        var run = RunRecord(observed: observed, plan: plan)
        run.sourceCredentials = await observed.fetcher.credentialSources()
        if options.dryRun {
            return report(.planned, run, plan.items.map { ModelResult(modelId: $0.modelId, planned: $0, status: Self.passiveStatus($0) ?? .notRun("dry run")) })
        }
        if let refusal = plan.refusal {
            let results = plan.items.map { ModelResult(modelId: $0.modelId, planned: $0, status: Self.passiveStatus($0) ?? .notRun(refusal.description)) }
            results.forEach { emit(.modelFinished($0)) }
            return report(.refused, run, results, failure: SyncFailure(kind: .terminal, message: refusal.description))
        }
        var results = await apply(plan, observed)
        results += prune(plan, after: results)
        run.warnings += finishState(observed)
        run.warnings += recordEnsuredUse(results)
        return report(outcome(results), run, results)
    }

    /// A directory's path for comparison: `URL ==` also compares a trailing slash, which a URL
    /// gains when it is standardized after the directory was created (two first runs at once).
    static func comparablePath(_ url: URL) -> String {
        var path = url.standardizedFileURL.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// The status of items that need no work, or nil for work items.
    static func passiveStatus(_ item: PlanItem) -> ModelResult.Status? {
        switch item.action {
        case .keep(let v): return .unchanged(version: v)
        case .skip: return .skipped
        case .blocked: return .blocked
        default: return nil
        }
    }
}

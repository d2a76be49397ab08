import Foundation
import Manashiki
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One run of a `Reconciler`: the side effects around the pure planner.
final class SyncRun: Sendable {
    let manifest: Manifest
    let registry: any RegistryClient
    let options: Reconciler.Options
    let retry: RetryPolicy
    let downloadOptions: DownloadOptions
    let layout: StoreLayout
    let resolver: SecretResolver
    /// Who this run claims models for: the option, else the manifest's `store.owner`, else
    /// `StoreOwner.current`.
    let owner: String
    let emit: @Sendable (SyncEvent) -> Void
    /// The state as it is being updated, persisted after each change.
    let state = Locked(StoreState())
    /// When the state file was last written (uptime nanoseconds).
    private let lastStateWrite = Locked<UInt64>(0)
    let bytesDownloaded = Locked<Int64>(0)
    let bytesReused = Locked<Int64>(0)
    /// The registry records the plan was made with, by model id (their facts are recorded
    /// with each install, for `export`).
    let plannedRecords = Locked<[String: ModelRecord]>([:])
    /// Bytes installed by source label.
    let bytesBySource = Locked<[String: Int64]>([:])
    /// Sources that served bad bytes (rejected), reported as warnings.
    let sourceWarnings = Locked<[String]>([])

    /// A run of `manifest` against `registry`, each download tuned by `download`; secrets come from `options.environment`, paths
    /// resolve against the manifest's directory.
    init(manifest: Manifest, registry: any RegistryClient, options: Reconciler.Options, retry: RetryPolicy,
         download: DownloadOptions, emit: @escaping @Sendable (SyncEvent) -> Void) {
        self.manifest = manifest
        self.registry = registry
        self.options = options
        self.retry = retry
        downloadOptions = download
        layout = StoreLayout(directory: manifest.storeDirectory)
        resolver = SecretResolver(environment: options.environment, baseDirectory: manifest.baseDirectory)
        owner = options.owner ?? manifest.store.owner ?? StoreOwner.current
        self.emit = emit
    }

    /// A directory's path for comparison: `URL ==` also compares a trailing slash, which a URL
    /// gains when it is standardized after the directory was created (two first runs at once).
    static func comparablePath(_ url: URL) -> String {
        var path = url.standardizedFileURL.path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    func perform() async -> SyncReport {
        guard Self.comparablePath(layout.directory) == Self.comparablePath(registry.storageDirectory) else {
            return SyncReport(outcome: .failed, runFailure: SyncFailure(kind: .terminal,
                message: "the registry client installs into \(registry.storageDirectory.path) but the manifest's store is \(layout.directory.path)"))
        }
        // A plan changes nothing: on a store that has never been synced (no lock file) there is
        // nothing to protect, and taking the lock would create `.manashiki/`.
        if options.dryRun && !FileManager.default.fileExists(atPath: layout.lockFile.path) { return await locked() }
        let lock: StoreLock?
        do {
            lock = try await StoreLock.acquire(layout, timeout: options.lockTimeout, pollInterval: options.lockPollInterval, sleep: options.sleep)
        } catch {
            if error is CancellationError || Task.isCancelled { return SyncReport(outcome: .cancelled) }
            return SyncReport(outcome: .failed, runFailure: SyncFailure(error))
        }
        guard let lock else {
            return SyncReport(outcome: .locked, runFailure: SyncFailure(kind: .retryable,
                message: StoreLock.heldMessage(layout, waited: options.lockTimeout)))
        }
        defer { lock.release() }
        return await locked()
    }

    /// Everything that happens while holding the lock.
    private func locked() async -> SyncReport {
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
            return SyncReport(outcome: .failed, runFailure: SyncFailure(kind: .terminal, message: StateFile.newerFormatMessage(version)),
                              cleanedLeftovers: cleaned, warnings: warnings)
        }
        state.withLock { $0 = initial }
        let identities = StoreScanner.identities(layout)

        // What stands in for the catalog: the lock, the bundles' indexes (offline), or the registry's.
        var fetcher = makeFetcher()
        warnings += await fetcher.readIndexes()
        var planManifest = manifest
        var catalog: [ModelEntry] = []
        var listing = CatalogListing(entries: [])
        var preset: [String: ModelRecord] = [:]
        var context = FetchContext(fetcher: fetcher, offline: options.offline, fallback: manifest.fallback)
        if options.lock != nil || options.offline {
            var artifacts: [PinnedArtifact]
            if let lock = options.lock {
                let (pinned, locked, differences) = SourcePlanning.locked(manifest, lock)
                guard differences.isEmpty else {
                    return SyncReport(outcome: .failed, runFailure: SyncFailure(kind: .terminal,
                        message: "the lock file does not match the manifest (\(differences.map(\.description).joined(separator: "; "))); run `manashiki-sync lock` and commit the lock"),
                        cleanedLeftovers: cleaned, warnings: warnings)
                }
                planManifest = pinned
                artifacts = locked
                if !options.offline && manifest.fallback == .registry {
                    do {
                        let current = try await retry.run({ [registry] in try await registry.listModels() })
                        context.registryServes = Dictionary(current.map { ($0.modelId, $0.sha256) }, uniquingKeysWith: { a, _ in a })
                    } catch {
                        context.registryServes = [:]
                        warnings.append("the registry's catalog could not be read (\(SyncFailure(error).message)); locked models come only from the sources")
                    }
                }
            } else {
                var indexes: [BundleIndex] = []
                for source in fetcher.sources {
                    guard let bundle = source.bundle else { continue }
                    do { indexes.append(try BundleIndex.read(bundle)) } catch {
                        warnings.append("\(source.label) cannot be used offline: \(error)")
                        context.unreadable.append("\(source.label): \(error)")
                    }
                }
                artifacts = SourcePlanning.offlineCatalog(manifest, indexes)
            }
            catalog = artifacts.map(\.entry)
            for artifact in artifacts { if let record = artifact.modelRecord { preset[artifact.modelId] = record } }
        } else {
            do {
                listing = try await retry.run({ [registry] in try await registry.listCatalog() }, onRetry: { [emit] attempt, error, wait in
                    emit(.retrying(modelId: nil, attempt: attempt, delay: wait, reason: error.description))
                })
            } catch {
                return SyncReport(outcome: Task.isCancelled ? .cancelled : .failed, runFailure: SyncFailure(error), cleanedLeftovers: cleaned, warnings: warnings)
            }
            catalog = listing.entries
        }
        let byId = Dictionary(catalog.map { ($0.modelId, $0) }, uniquingKeysWith: { a, _ in a })
        // An invalid entry blocks only its own model (when the manifest asks for it).
        var invalidEntries: [String: String] = [:]
        for bad in listing.rejected {
            warnings.append("the registry's catalog has an invalid entry, ignored: \(bad)")
            if let id = bad.modelId, byId[id] == nil { invalidEntries[id] = bad.problem }
        }

        var sizes: [String: Set<Int64>] = [:]
        for id in identities.keys {
            if let e = byId[id] { sizes[id, default: []].insert(e.size) }
            if let s = initial.models[id] { sizes[id, default: []].insert(s.size) }
        }
        let snapshot = await StoreScanner.snapshot(layout, state: initial, identities: identities, candidateSizes: sizes)
        var input = PlanInput(manifest: planManifest, device: options.device ?? manifest.device ?? .current, snapshot: snapshot,
                              catalog: catalog, invalidCatalogEntries: invalidEntries, freeBytes: options.freeSpace(layout.directory), forcePrune: options.forcePrune,
                              owner: owner)
        for kept in StorageDirectory.keptPartials(in: layout) where !kept.inUse {
            guard let sha256 = kept.sha256, let size = kept.size else { continue }
            input.partials[kept.modelId, default: []].append(PartialDownload(sha256: sha256, size: size, bytes: kept.bytes))
        }
        let privateSource = fetcher.eligible(isPrivate: true).first
        for spec in manifest.models {
            if let entry = byId[spec.id], let cached = initial.record(spec.id, version: entry.version) { input.records[spec.id] = cached }
            if let record = preset[spec.id] { input.records[spec.id] = record }
            if options.offline {
                // Offline, a private model needs no session: it can come only from a source marked for it.
                input.sessions[spec.id] = privateSource == nil
                    ? .unavailable("offline, private models come only from a bundle marked \"private\": true, and none is")
                    : .available
            } else if spec.session == nil, let entry = byId[spec.id], fetcher.holdsLocally(entry.sha256, isPrivate: true) {
                // A bundle marked for private models holds it: no session is needed to copy it.
                input.sessions[spec.id] = .available
            } else {
                input.sessions[spec.id] = resolver.availability(spec.session, registry: registry)
            }
        }
        let needed = Planner.recordsNeeded(input).filter { input.records[$0.modelId] == nil }
        if options.lock != nil || options.offline {
            let fix = options.lock != nil
                ? "the lock file has no record facts for %@ (write it again with `manashiki-sync lock`)"
                : "the bundle's index has no record facts for %@ (its store installed it before they were recorded: export with `--select lock`, or from a store that synced it since)"
            for entry in needed {
                input.recordFailures[entry.modelId] = fix.replacingOccurrences(of: "%@", with: "\(entry.modelId) \(entry.version)")
            }
        } else {
            await fetchRecords(needed, into: &input)
        }

        let fetchContext = context
        let plan = SourcePlanning.adjust(Planner.plan(input), offline: options.offline, unavailable: { id in
            let spec = planManifest.models.first { $0.id == id }
            let bundles = fetcher.sources.filter { $0.bundle != nil }.map(\.label)
            var why = "offline, no bundle holds an artifact of \(id) satisfying \(spec.map { "\($0.version)" } ?? "the manifest")"
            why += bundles.isEmpty ? " (no bundle source is configured: add one to \"sources\" or pass --from DIR)" : " (searched: \(bundles.joined(separator: ", ")))"
            if !fetchContext.unreadable.isEmpty { why += "; unreadable: \(fetchContext.unreadable.joined(separator: "; "))" }
            return why
        }, source: { item in
            switch item.action {
            case .keep, .verify: return "store"
            case .download(let t), .replace(_, let t, _):
                return fetcher.expectedSource(sha256: t.sha256, isPrivate: t.needsSession,
                                              registryAllowed: fetchContext.registryRefusal(item.modelId, t) == nil)
            default: return nil
            }
        }, unserved: { id, t in
            "\(t.version) (sha256 \(t.sha256.prefix(12))…) is not available: \(fetcher.whyNoSource(sha256: t.sha256, isPrivate: t.needsSession)); \(fetchContext.registryRefusal(id, t) ?? "the registry is not tried")"
        })
        plannedRecords.withLock { $0 = input.records }
        emit(.planReady(plan))
        warnings += plan.warnings
        func report(_ outcome: SyncOutcome, _ results: [ModelResult], failure: SyncFailure? = nil) -> SyncReport {
            var r = SyncReport(outcome: outcome, plan: plan, results: results, runFailure: failure, cleanedLeftovers: cleaned,
                               bytesDownloaded: bytesDownloaded.current, bytesHashed: snapshot.bytesHashed, warnings: warnings + sourceWarnings.current)
            r.bytesBySource = bytesBySource.current
            r.bytesReused = bytesReused.current
            return r
        }
        if options.dryRun {
            return report(.planned, plan.items.map { ModelResult(modelId: $0.modelId, planned: $0, status: Self.passiveStatus($0) ?? .notRun("dry run")) })
        }
        if let refusal = plan.refusal {
            let results = plan.items.map { ModelResult(modelId: $0.modelId, planned: $0, status: Self.passiveStatus($0) ?? .notRun(refusal.description)) }
            results.forEach { emit(.modelFinished($0)) }
            return report(.refused, results, failure: SyncFailure(kind: .terminal, message: refusal.description))
        }

        var results = await apply(plan, snapshot: snapshot, context: fetchContext)
        results += prune(plan, after: results)
        finishState(initial: initial, catalog: byId, warnings: &warnings)
        return report(outcome(results), results)
    }

    /// Fetches the records the plan needs, a few at a time, caching them in the state.
    private func fetchRecords(_ needed: [ModelEntry], into input: inout PlanInput) async {
        let fetched = await withTaskGroup(of: (String, Result<ModelRecord, SyncFailure>).self) { group in
            var pending = needed[...]
            var out: [(String, Result<ModelRecord, SyncFailure>)] = []
            let addNext: (inout TaskGroup<(String, Result<ModelRecord, SyncFailure>)>) -> Void = { [registry, retry, emit] group in
                guard let entry = pending.popFirst() else { return }
                group.addTask {
                    do {
                        let record = try await retry.run({ try await registry.getModel(entry.modelId) }, onRetry: { attempt, error, wait in
                            emit(.retrying(modelId: entry.modelId, attempt: attempt, delay: wait, reason: error.description))
                        })
                        return (entry.modelId, .success(record))
                    } catch { return (entry.modelId, .failure(SyncFailure(error))) }
                }
            }
            for _ in 0..<max(1, manifest.store.concurrency) { addNext(&group) }
            while let result = await group.next() {
                out.append(result)
                addNext(&group)
            }
            return out
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

    /// The status of items that need no work, or nil for work items.
    static func passiveStatus(_ item: PlanItem) -> ModelResult.Status? {
        switch item.action {
        case .keep(let v): return .unchanged(version: v)
        case .skip: return .skipped
        case .blocked: return .blocked
        default: return nil
        }
    }

    // MARK: - Apply

    /// Runs downloads, replacements and verifications with a sliding window of
    /// `store.concurrency` tasks; one action per model.
    private func apply(_ plan: Plan, snapshot: StoreSnapshot, context: FetchContext) async -> [ModelResult] {
        var results: [String: ModelResult] = [:]
        var work: [PlanItem] = []
        for item in plan.items {
            if case .prune = item.action { continue }
            if let passive = Self.passiveStatus(item) {
                if case .blocked(let cause) = item.action, Self.isPruneBlock(cause) { continue }
                var result = ModelResult(modelId: item.modelId, planned: item, status: passive)
                if case .keep = item.action { result.source = "store" }
                results[item.modelId] = result
                emit(.modelFinished(result))
            } else {
                work.append(item)
            }
        }
        await withTaskGroup(of: ModelResult.self) { group in
            var pending = work[...]
            let addNext: (inout TaskGroup<ModelResult>) -> Void = { group in
                guard let item = pending.popFirst() else { return }
                group.addTask { await self.perform(item, snapshot: snapshot, context: context) }
            }
            for _ in 0..<max(1, manifest.store.concurrency) { addNext(&group) }
            while let result = await group.next() {
                results[result.modelId] = result
                emit(.modelFinished(result))
                addNext(&group)
            }
        }
        return plan.items.compactMap { item in
            if case .prune = item.action { return nil }
            return results[item.modelId]
        }
    }

    static func isPruneBlock(_ cause: BlockCause) -> Bool {
        switch cause {
        case .pruneLimit, .emptyManifest: return true
        default: return false
        }
    }

    private func perform(_ item: PlanItem, snapshot: StoreSnapshot, context: FetchContext) async -> ModelResult {
        let id = item.modelId
        emit(.modelStarted(modelId: id, action: item.action))
        func fail(_ failure: SyncFailure) -> ModelResult { ModelResult(modelId: id, planned: item, status: .failed(failure)) }
        switch item.action {
        case .verify(let version, let sha, let size):
            guard let identity = snapshot.files[id]?.identity, FileIdentity.of(layout.modelFile(id)) == identity else {
                return fail(SyncFailure(kind: .retryable, message: "the file changed while it was being checked; run again"))
            }
            let previous = state.withLock { $0.models[id] }
            let facts = previous?.sha256 == sha ? previous?.record : facts(of: id, sha256: sha)
            record(id, StoreState.Installed(version: version, sha256: sha, size: size, identity: identity, record: facts))
            var result = ModelResult(modelId: id, planned: item, status: .verified(version: version))
            result.source = "store"
            return result

        case .download(let target), .replace(_, let target, _):
            let expected = ExpectedArtifact(sha256: target.sha256, size: target.size, version: target.version)
            let progress: @Sendable (Int64, Int64?) -> Void = { [emit] written, total in
                emit(.progress(modelId: id, bytesWritten: written, totalBytes: total))
            }
            var resumable = downloadOptions
            resumable.onResume = { [emit] kept in emit(.resumed(modelId: id, bytesKept: kept, totalBytes: target.size)) }
            let options = resumable
            let fetched: ArtifactFetcher.Fetched
            do {
                let directory = layout.directory
                fetched = try await context.fetcher.fetch(id, target: target, store: { try StorageDirectory(url: directory) }, run: options, progress: progress,
                                                          warn: { [sourceWarnings] text in sourceWarnings.withLock { $0.append(text) } },
                                                          registryRefusal: context.registryRefusal(id, target)) { [self] in
                    try await self.registryDownload(id, target: target, expected: expected, options: options, progress: progress)
                }
            } catch { return fail(SyncFailure(error)) }
            let downloaded = fetched.model
            guard downloaded.sha256 == target.sha256 else {
                return fail(SyncFailure(APIError.integrityMismatch(expected: target.sha256, actual: downloaded.sha256)))
            }
            // The identity of the file we wrote (taken before the rename), not of whatever is at
            // the path now: a file swapped in by someone else is then noticed and re-hashed.
            guard let identity = downloaded.fileIdentity ?? FileIdentity.of(layout.modelFile(id)) else {
                return fail(SyncFailure(kind: .terminal, message: "the download reported success but \(layout.modelFile(id).path) is missing"))
            }
            bytesDownloaded.withLock { $0 += downloaded.size - downloaded.resumedFrom }
            bytesReused.withLock { $0 += downloaded.resumedFrom }
            bytesBySource.withLock { $0[fetched.source, default: 0] += downloaded.size - downloaded.resumedFrom }
            record(id, StoreState.Installed(version: target.version, sha256: downloaded.sha256, size: downloaded.size, identity: identity,
                                            record: facts(of: id, sha256: downloaded.sha256)))
            var result = ModelResult(modelId: id, planned: item, status: .installed(version: target.version))
            if case .replace(let from, _, _) = item.action { result.status = .replaced(from: from, to: target.version) }
            result.source = fetched.source
            if !fetched.skipped.isEmpty { result.sourcesSkipped = fetched.skipped }
            if downloaded.resumedFrom > 0 { result.resumedFrom = downloaded.resumedFrom }
            return result

        default:
            return ModelResult(modelId: id, planned: item, status: Self.passiveStatus(item) ?? .notRun("nothing to do"))
        }
    }

    /// Downloads from the registry with the retry policy, minting or reading the session token
    /// of a private model first.
    private func registryDownload(_ id: String, target: ArtifactTarget, expected: ExpectedArtifact, options: DownloadOptions,
                                  progress: @escaping @Sendable (Int64, Int64?) -> Void) async throws -> DownloadedModel {
        var token: String?
        if target.needsSession {
            guard let source = manifest.models.first(where: { $0.id == id })?.session else {
                throw SyncFailure(kind: .terminal, message: "private model without a session source")
            }
            token = try await retry.run({ [resolver, registry] in try await resolver.token(source, registry: registry) })
        }
        // The deadline holds for the whole model, retries included: each attempt gets what is
        // left of it, and none starts (or is retried) once it has passed.
        let end = options.deadline.map { Deadline(in: $0) }
        return try await retry.run({ [registry, token] in
            var attempt = options
            if let end {
                guard !end.hasPassed else {
                    let deadline = ManashikiClient.deadlineError(id, options)
                    throw SyncFailure(kind: .terminal, message: deadline.description, apiError: deadline)
                }
                attempt.deadline = end.remaining
            }
            do {
                return try await registry.download(id, session: token, expecting: expected, options: attempt, progress: progress)
            } catch is APIError where end?.hasPassed ?? false {
                // Out of time: not retried, and the message names the run's limit.
                let deadline = ManashikiClient.deadlineError(id, options)
                throw SyncFailure(kind: .terminal, message: deadline.description, apiError: deadline)
            }
        }, onRetry: { [emit] attempt, error, wait in
            emit(.retrying(modelId: id, attempt: attempt, delay: wait, reason: error.description))
        })
    }

    /// The run's sources: `--from` first, then the manifest's, bundle paths resolved.
    private func makeFetcher() -> ArtifactFetcher {
        let resolved = (options.extraSources + manifest.sources).map { source -> ArtifactFetcher.ResolvedSource in
            var bundle: BundleLayout?
            if case .bundle(let path) = source.kind { bundle = BundleLayout(directory: manifest.bundleDirectory(path)) }
            return ArtifactFetcher.ResolvedSource(source: source, bundle: bundle, label: manifest.label(of: source))
        }
        return ArtifactFetcher(sources: resolved, mirrorClient: registry as? any MirrorDownloading, offline: options.offline,
                               mirrorIdleTimeout: options.mirrorIdleTimeout)
    }

    /// The facts of the record the plan used for `id`, when it describes this artifact.
    private func facts(of id: String, sha256: String) -> ArtifactFacts? {
        plannedRecords.withLock { $0[id] }.flatMap { $0.sha256 == sha256 ? ArtifactFacts($0) : nil }
    }

    /// Records an installed model and persists the state (at most once a second; the run ends
    /// with a final write).
    private func record(_ id: String, _ installed: StoreState.Installed) {
        state.withLock { s in
            // The owners who wanted the previous file still want this one.
            var entry = installed
            entry.owners = s.models[id]?.owners
            s.models[id] = entry.claimed(by: owner)
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

    // MARK: - Prune

    /// Deletes the plan's prunes, last, and only when nothing failed or is blocked.
    private func prune(_ plan: Plan, after results: [ModelResult]) -> [ModelResult] {
        let prunes = plan.items.filter {
            switch $0.action {
            case .prune: return true
            case .blocked(let cause): return Self.isPruneBlock(cause)
            default: return false
            }
        }
        let problems = results.filter { $0.failure != nil || $0.status == .blocked }.count
        return prunes.map { item in
            let result: ModelResult
            if case .blocked = item.action {
                result = ModelResult(modelId: item.modelId, planned: item, status: .blocked)
            } else if problems > 0 || Task.isCancelled {
                let why = Task.isCancelled ? "cancelled" : "not pruned: \(problems) model(s) failed or are blocked; prunes run only when everything else succeeded"
                result = ModelResult(modelId: item.modelId, planned: item, status: .notRun(why))
            } else {
                result = ModelResult(modelId: item.modelId, planned: item, status: delete(item.modelId))
            }
            emit(.modelFinished(result))
            return result
        }
    }

    /// Deletes `<id>.bin` if it is a regular file with a valid id; nothing else is ever touched.
    private func delete(_ id: String) -> ModelResult.Status {
        let url = layout.modelFile(id)
        guard ModelID.modelId(fromFileName: url.lastPathComponent) == id,
              let info = POSIX.lstatInfo(url.path), POSIX.isRegular(info) else {
            return .failed(SyncFailure(kind: .terminal, message: "\(url.lastPathComponent) is not a regular model file; left alone"))
        }
        guard unlink(url.path) == 0 else {
            return .failed(SyncFailure(APIError.fileSystem(operation: "delete", path: url.path, code: errno)))
        }
        state.withLock { s in
            s.models[id] = nil
            persist(s)
        }
        return .pruned
    }

    // MARK: - End

    /// Forgets files that are gone, trims the record cache, and writes the state if it changed.
    private func finishState(initial: StoreState, catalog: [String: ModelEntry], warnings: inout [String]) {
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
        guard final != initial else { return }
        do { try StateFile.write(final, to: layout) } catch {
            warnings.append("the state file could not be written (\(SyncFailure(error).message)); the next run re-hashes the models")
        }
    }

    private func outcome(_ results: [ModelResult]) -> SyncOutcome {
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
}

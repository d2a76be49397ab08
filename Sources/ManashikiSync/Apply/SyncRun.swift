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
    let layout: StoreLayout
    let resolver: SecretResolver
    let emit: @Sendable (SyncEvent) -> Void
    /// The state as it is being updated, persisted after each change.
    let state = Locked(StoreState())
    /// When the state file was last written (uptime nanoseconds).
    private let lastStateWrite = Locked<UInt64>(0)
    let bytesDownloaded = Locked<Int64>(0)
    /// The registry records the plan was made with, by model id (their facts are recorded
    /// with each install, for `export`).
    let plannedRecords = Locked<[String: ModelRecord]>([:])

    /// A run of `manifest` against `registry`; secrets come from `options.environment`, paths
    /// resolve against the manifest's directory.
    init(manifest: Manifest, registry: any RegistryClient, options: Reconciler.Options, retry: RetryPolicy,
         emit: @escaping @Sendable (SyncEvent) -> Void) {
        self.manifest = manifest
        self.registry = registry
        self.options = options
        self.retry = retry
        layout = StoreLayout(directory: manifest.storeDirectory)
        resolver = SecretResolver(environment: options.environment, baseDirectory: manifest.baseDirectory)
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
                message: "another run holds the lock on \(layout.directory.path) (waited \(options.lockTimeout)); try again when it has finished"))
        }
        defer { lock.release() }
        return await locked()
    }

    /// Everything that happens while holding the lock.
    private func locked() async -> SyncReport {
        let cleaned = options.dryRun ? [] : LeftoverCleaner.clean(layout)
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

        let catalog: [ModelEntry]
        do {
            catalog = try await retry.run({ [registry] in try await registry.listModels() }, onRetry: { [emit] attempt, error, wait in
                emit(.retrying(modelId: nil, attempt: attempt, delay: wait, reason: error.description))
            })
        } catch {
            return SyncReport(outcome: Task.isCancelled ? .cancelled : .failed, runFailure: SyncFailure(error), cleanedLeftovers: cleaned, warnings: warnings)
        }
        let byId = Dictionary(catalog.map { ($0.modelId, $0) }, uniquingKeysWith: { a, _ in a })

        var sizes: [String: Set<Int64>] = [:]
        for id in identities.keys {
            if let e = byId[id] { sizes[id, default: []].insert(e.size) }
            if let s = initial.models[id] { sizes[id, default: []].insert(s.size) }
        }
        let snapshot = await StoreScanner.snapshot(layout, state: initial, identities: identities, candidateSizes: sizes)
        var input = PlanInput(manifest: manifest, device: options.device ?? manifest.device ?? .current, snapshot: snapshot,
                              catalog: catalog, freeBytes: options.freeSpace(layout.directory), forcePrune: options.forcePrune)
        for spec in manifest.models {
            if let entry = byId[spec.id], let cached = initial.record(spec.id, version: entry.version) { input.records[spec.id] = cached }
            input.sessions[spec.id] = resolver.availability(spec.session, registry: registry)
        }
        await fetchRecords(Planner.recordsNeeded(input), into: &input)

        let plan = Planner.plan(input)
        plannedRecords.withLock { $0 = input.records }
        emit(.planReady(plan))
        warnings += plan.warnings
        func report(_ outcome: SyncOutcome, _ results: [ModelResult], failure: SyncFailure? = nil) -> SyncReport {
            SyncReport(outcome: outcome, plan: plan, results: results, runFailure: failure, cleanedLeftovers: cleaned,
                       bytesDownloaded: bytesDownloaded.current, bytesHashed: snapshot.bytesHashed, warnings: warnings)
        }
        if options.dryRun {
            return report(.planned, plan.items.map { ModelResult(modelId: $0.modelId, planned: $0, status: Self.passiveStatus($0) ?? .notRun("dry run")) })
        }
        if let refusal = plan.refusal {
            let results = plan.items.map { ModelResult(modelId: $0.modelId, planned: $0, status: Self.passiveStatus($0) ?? .notRun(refusal.description)) }
            results.forEach { emit(.modelFinished($0)) }
            return report(.refused, results, failure: SyncFailure(kind: .terminal, message: refusal.description))
        }

        var results = await apply(plan, snapshot: snapshot)
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
    private func apply(_ plan: Plan, snapshot: StoreSnapshot) async -> [ModelResult] {
        var results: [String: ModelResult] = [:]
        var work: [PlanItem] = []
        for item in plan.items {
            if case .prune = item.action { continue }
            if let passive = Self.passiveStatus(item) {
                if case .blocked(let cause) = item.action, Self.isPruneBlock(cause) { continue }
                let result = ModelResult(modelId: item.modelId, planned: item, status: passive)
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
                group.addTask { await self.perform(item, snapshot: snapshot) }
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

    private func perform(_ item: PlanItem, snapshot: StoreSnapshot) async -> ModelResult {
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
            return ModelResult(modelId: id, planned: item, status: .verified(version: version))

        case .download(let target), .replace(_, let target, _):
            var token: String?
            if target.needsSession {
                guard let source = manifest.models.first(where: { $0.id == id })?.session else {
                    return fail(SyncFailure(kind: .terminal, message: "private model without a session source"))
                }
                do {
                    token = try await retry.run({ [resolver, registry] in try await resolver.token(source, registry: registry) })
                } catch { return fail(SyncFailure(error)) }
            }
            let expected = ExpectedArtifact(sha256: target.sha256, size: target.size, version: target.version)
            let downloaded: DownloadedModel
            do {
                downloaded = try await retry.run({ [registry, emit, token] in
                    try await registry.download(id, session: token, expecting: expected,
                                                timeout: manifest.policies.downloadTimeoutSeconds.map(TimeInterval.init), progress: { written, total in
                        emit(.progress(modelId: id, bytesWritten: written, totalBytes: total))
                    })
                }, onRetry: { [emit] attempt, error, wait in
                    emit(.retrying(modelId: id, attempt: attempt, delay: wait, reason: error.description))
                })
            } catch { return fail(SyncFailure(error)) }
            guard downloaded.sha256 == target.sha256 else {
                return fail(SyncFailure(APIError.integrityMismatch(expected: target.sha256, actual: downloaded.sha256)))
            }
            // The identity of the file we wrote (taken before the rename), not of whatever is at
            // the path now: a file swapped in by someone else is then noticed and re-hashed.
            let stamped = downloaded.fileStamp.map { FileIdentity(size: $0.size, mtimeNanoseconds: $0.mtimeNanoseconds, inode: $0.inode) }
            guard let identity = stamped ?? FileIdentity.of(layout.modelFile(id)) else {
                return fail(SyncFailure(kind: .terminal, message: "the download reported success but \(layout.modelFile(id).path) is missing"))
            }
            bytesDownloaded.withLock { $0 += downloaded.size }
            record(id, StoreState.Installed(version: target.version, sha256: downloaded.sha256, size: downloaded.size, identity: identity,
                                            record: facts(of: id, sha256: downloaded.sha256)))
            if case .replace(let from, _, _) = item.action {
                return ModelResult(modelId: id, planned: item, status: .replaced(from: from, to: target.version))
            }
            return ModelResult(modelId: id, planned: item, status: .installed(version: target.version))

        default:
            return ModelResult(modelId: id, planned: item, status: Self.passiveStatus(item) ?? .notRun("nothing to do"))
        }
    }

    /// The facts of the record the plan used for `id`, when it describes this artifact.
    private func facts(of id: String, sha256: String) -> ArtifactFacts? {
        plannedRecords.withLock { $0[id] }.flatMap { $0.sha256 == sha256 ? ArtifactFacts($0) : nil }
    }

    /// Records an installed model and persists the state (at most once a second; the run ends
    /// with a final write).
    private func record(_ id: String, _ installed: StoreState.Installed) {
        state.withLock { s in
            s.models[id] = installed
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
              let info = POSIXFile.lstatInfo(url.path), POSIXFile.isRegular(info) else {
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

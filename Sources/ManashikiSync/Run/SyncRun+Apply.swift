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

extension SyncRun {
    /// Runs downloads, replacements and verifications with a sliding window of
    /// `store.concurrency` tasks; one action per model. Prunes are left to `prune(_:after:)`.
    func apply(_ plan: Plan, _ observed: Observation) async -> [ModelResult] {
        var results: [String: ModelResult] = [:]
        var work: [PlanItem] = []
        let context = FetchContext(fetcher: observed.fetcher, offline: options.offline, fallback: manifest.fallback,
                                   registryServes: observed.catalog.registryServes, unreadable: observed.catalog.unreadable, trust: observed.trust)
        for item in plan.items {
            if Self.isDelete(item.action) { continue }
            // With trust configured, a kept model is checked again (`confirmKept`).
            if case .keep = item.action, !context.trust.isEmpty {
                work.append(item)
            } else if let passive = Self.passiveStatus(item) {
                if case .blocked(let cause) = item.action, Self.isPruneBlock(cause) { continue }
                var result = ModelResult(modelId: item.modelId, planned: item, status: passive)
                if case .keep = item.action { result.source = "store" }
                results[item.modelId] = result
                emit(.modelFinished(result))
            } else {
                work.append(item)
            }
        }
        await Concurrently.forEach(work, limit: manifest.store.concurrency, { item in
            await self.perform(item, snapshot: observed.snapshot, context: context)
        }) { result in
            results[result.modelId] = result
            emit(.modelFinished(result))
        }
        return plan.items.compactMap { item in
            if Self.isDelete(item.action) { return nil }
            return results[item.modelId]
        }
    }

    /// Prunes and evictions: the deletes, which run last.
    static func isDelete(_ action: PlanAction) -> Bool {
        switch action {
        case .prune, .evict: return true
        default: return false
        }
    }

    static func isPruneBlock(_ cause: BlockCause) -> Bool {
        switch cause {
        case .pruneLimit, .emptyManifest: return true
        default: return false
        }
    }

    /// One item: a verification records the file again, a download or replacement installs
    /// from the first source that serves it.
    private func perform(_ item: PlanItem, snapshot: StoreSnapshot, context: FetchContext) async -> ModelResult {
        let id = item.modelId
        if case .keep(let version) = item.action { return await confirmKept(item, version: version, context: context) }
        emit(.modelStarted(modelId: id, action: item.action))
        switch item.action {
        case .verify(let version, let sha, let size):
            guard let identity = snapshot.files[id]?.identity, FileIdentity.of(layout.modelFile(id)) == identity else {
                return ModelResult(modelId: id, planned: item, status: .failed(SyncFailure(kind: .retryable, message: "the file changed while it was being checked; run again")))
            }
            let previous = state.withLock { $0.models[id] }
            let facts = previous?.sha256 == sha ? previous?.record : facts(of: id, sha256: sha)
            var result = ModelResult(modelId: id, planned: item, status: .verified(version: version))
            result.source = "store"
            // The file's digest is recorded whatever trust says (so it is not hashed again); it
            // is reported verified only when the trust checks accept it (else failed, and the
            // next run checks it again as a kept model).
            var signer: PublisherSigner?
            do {
                let candidate = ArtifactCandidate(modelId: id, version: version, sha256: sha, size: size, source: "store",
                                                  purpose: .keep, pinnedExactly: pinnedExactly(id))
                let evidence = try await confirm(candidate, trust: context.trust)
                signer = keepSignature(id, evidence, trust: context.trust)
                result.signer = signer
                if !evidence.isEmpty { result.trust = evidence }
            } catch {
                result.status = .failed(SyncFailure(error))
            }
            record(id, StoreState.Installed(version: version, sha256: sha, size: size, identity: identity, record: facts, signer: signer))
            return result
        case .download(let target), .replace(_, let target, _):
            do { return try await install(item, target: target, context: context) } catch {
                return ModelResult(modelId: id, planned: item, status: .failed(SyncFailure(error)))
            }
        default:
            return ModelResult(modelId: id, planned: item, status: Self.passiveStatus(item) ?? .notRun("nothing to do"))
        }
    }

    /// Installs `target` for `item` and records it.
    private func install(_ item: PlanItem, target: ArtifactTarget, context: FetchContext) async throws -> ModelResult {
        let id = item.modelId
        let expected = ExpectedArtifact(sha256: target.sha256, size: target.size, version: target.version)
        let progress: @Sendable (Int64, Int64?) -> Void = { [emit] written, total in
            emit(.progress(modelId: id, bytesWritten: written, totalBytes: total))
        }
        var options = downloadOptions
        options.onResume = { [emit] kept in emit(.resumed(modelId: id, bytesKept: kept, totalBytes: target.size)) }
        options.onWaitingForNetwork = { [emit] in emit(.waitingForNetwork(modelId: id)) }
        options.onDiscard = { [tally] discarded, fetched in
            tally.withLock { $0.sourceWarnings.append("\(id): \(discarded) bytes discarded (\(fetched) of them fetched in this attempt) because the artifact's SHA-256 did not match; nothing was installed from them") }
        }
        let run = options
        let directory = layout.directory
        // Trust decides on the digest the transfer enforces, before a byte is fetched.
        let expectedSource = context.fetcher.expectedSource(sha256: target.sha256, isPrivate: target.needsSession,
                                                            registryAllowed: context.registryRefusal(id, target) == nil) ?? "registry"
        var purpose = ArtifactCandidate.Purpose.install
        if case .replace = item.action { purpose = .replace }
        let candidate = ArtifactCandidate(modelId: id, version: target.version, sha256: target.sha256, size: target.size,
                                          source: expectedSource, purpose: purpose, pinnedExactly: pinnedExactly(id))
        let evidence = try await confirm(candidate, trust: context.trust)
        let fetched = try await context.fetcher.fetch(id, target: target, store: { try StorageDirectory(url: directory) }, run: run, progress: progress,
                                                      warn: { [tally] text in tally.withLock { $0.sourceWarnings.append(text) } },
                                                      registryRefusal: context.registryRefusal(id, target)?.text) { [self] in
            try await self.registryDownload(id, target: target, expected: expected, options: run, progress: progress)
        }
        let downloaded = fetched.model
        guard downloaded.sha256 == target.sha256 else {
            throw APIError.integrityMismatch(expected: target.sha256, actual: downloaded.sha256)
        }
        // The identity of the file we wrote (taken before the rename), not of whatever is at
        // the path now: a file swapped in by someone else is then noticed and re-hashed.
        guard let identity = downloaded.fileIdentity ?? FileIdentity.of(layout.modelFile(id)) else {
            throw SyncFailure(kind: .terminal, message: "the download reported success but \(layout.modelFile(id).path) is missing")
        }
        tally.withLock { $0.count(downloaded, from: fetched.source) }
        let signer = keepSignature(id, evidence, trust: context.trust)
        await didInstall(candidate, evidence: evidence, trust: context.trust)
        record(id, StoreState.Installed(version: target.version, sha256: downloaded.sha256, size: downloaded.size, identity: identity,
                                        record: facts(of: id, sha256: downloaded.sha256), signer: signer))
        var result = ModelResult(modelId: id, planned: item, status: .installed(version: target.version))
        result.signer = signer
        if !evidence.isEmpty { result.trust = evidence }
        if case .replace(let from, _, _) = item.action { result.status = .replaced(from: from, to: target.version) }
        result.source = fetched.source
        if !fetched.skipped.isEmpty { result.sourcesSkipped = fetched.skipped }
        if downloaded.resumedFrom > 0 { result.resumedFrom = downloaded.resumedFrom }
        return result
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
        let outOfTime = { @Sendable () -> SyncFailure in
            let deadline = ArtifactDownloader.deadlineError(id, options)
            return SyncFailure(kind: .terminal, message: deadline.description, apiError: deadline)
        }
        return try await retry.run({ [registry, token] in
            var attempt = options
            if let end {
                guard !end.hasPassed else { throw outOfTime() }
                attempt.deadline = end.remaining
            }
            do {
                return try await registry.download(id, session: token, expecting: expected, options: attempt, progress: progress)
            } catch is APIError where end?.hasPassed ?? false {
                throw outOfTime() // not retried, and the message names the run's limit
            }
        }, onRetry: { [emit] attempt, error, wait in
            emit(.retrying(modelId: id, attempt: attempt, delay: wait, reason: error.description))
        })
    }

    /// The facts of the record the plan used for `id`, when it describes this artifact.
    private func facts(of id: String, sha256: String) -> ArtifactFacts? {
        plannedRecords.withLock { $0[id] }.flatMap { $0.sha256 == sha256 ? ArtifactFacts($0) : nil }
    }

    // MARK: - Prune

    /// Deletes the plan's prunes and evictions, last, and only when nothing failed or is blocked.
    func prune(_ plan: Plan, after results: [ModelResult]) -> [ModelResult] {
        let prunes = plan.items.filter {
            switch $0.action {
            case .prune, .evict: return true
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
                let verb = item.action.name == "evict" ? "evicted" : "pruned"
                let why = Task.isCancelled ? "cancelled" : "not \(verb): \(problems) model(s) failed or are blocked; deletes run only when everything else succeeded"
                result = ModelResult(modelId: item.modelId, planned: item, status: .notRun(why))
            } else if case .evict = item.action {
                result = ModelResult(modelId: item.modelId, planned: item, status: evict(item.modelId))
            } else {
                result = ModelResult(modelId: item.modelId, planned: item, status: delete(item.modelId))
            }
            emit(.modelFinished(result))
            return result
        }
    }

    /// Evicts `<id>.bin` under the exclusive side of its lease: a model a process took a lease
    /// on since the plan was made stays (the store is over budget until the next run).
    private func evict(_ id: String) -> ModelResult.Status {
        guard let exclusive = EvictionGuard.take(id, layout) else {
            return .notRun("not evicted: in use (a process took a lease on it since the plan was made); the next run evicts it if it must")
        }
        defer { exclusive.release() }
        let status = delete(id)
        return status == .pruned ? .evicted : status
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
        StoredSignatures.remove(id, in: layout)
        forget(id)
        return .pruned
    }
}

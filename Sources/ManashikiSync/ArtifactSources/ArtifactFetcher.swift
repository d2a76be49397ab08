import Foundation
import Manashiki
import ManashikiCore

/// Gets one artifact into the store: from each eligible source in order, verifying each, then
/// from the registry unless the run forbids it. A miss, an error or a wrong digest falls
/// through to the next; a file that does not verify is never installed.
struct ArtifactFetcher: Sendable {
    /// The sources, in order (`--from` first, then the manifest's), bundle paths resolved.
    let sources: [ResolvedSource]
    /// Fetches from mirrors (nil: mirrors are skipped).
    let mirrorClient: MirrorClient?
    /// Whether network sources are skipped (`--offline`).
    let offline: Bool
    /// Seconds without a byte before a mirror transfer fails over.
    var mirrorIdleTimeout: TimeInterval = 15
    /// What each mirror's `index.json` said, by label (`readIndexes()`, before the plan).
    var indexes: [String: SourceIndex] = [:]

    /// A source with its bundle directory resolved against the manifest.
    struct ResolvedSource: Sendable {
        var source: ArtifactSource
        /// The bundle's layout (bundles only).
        var bundle: BundleLayout?
        /// How the source is named in reports: `bundle /abs/path`, `mirror https://…` or `oci://…`.
        var label: String
        /// The registry client of an OCI source (`OCISourceClient`).
        var oci: OCISourceClient?
        /// The bucket client of an `s3` source (`S3SourceClient`).
        var s3: S3SourceClient?
    }

    /// What was installed, and from where.
    struct Fetched: Sendable {
        var model: DownloadedModel
        /// `registry` or a source's label.
        var source: String
        /// Sources that were tried first and why they did not serve it.
        var skipped: [String]
    }

    /// The sources a model may come from (private ones only from sources marked for them).
    func eligible(isPrivate: Bool) -> [ResolvedSource] {
        sources.filter { (!isPrivate || $0.source.servesPrivate) && !(offline && !$0.source.servesOffline) }
    }

    /// Whether an eligible bundle directory holds the blob.
    func holdsLocally(_ sha256: String, isPrivate: Bool) -> Bool {
        eligible(isPrivate: isPrivate).contains { $0.bundle.map { FileManager.default.fileExists(atPath: $0.blob(sha256).path) } ?? false }
    }

    /// The label of the first source expected to serve the artifact (a bundle that holds the
    /// blob, else the first mirror), else `registry` when allowed, else nil.
    func expectedSource(sha256: String, isPrivate: Bool, registryAllowed: Bool) -> String? {
        for s in eligible(isPrivate: isPrivate) {
            if let bundle = s.bundle {
                if FileManager.default.fileExists(atPath: bundle.blob(sha256).path) { return s.label }
            } else if let oci = s.oci {
                if oci.mayHold(sha256) { return s.label }
            } else if let bucket = s.s3 {
                if bucket.mayHold(sha256) { return s.label }
            } else if case .s3 = s.source.kind {
                continue
            } else if mirrorClient != nil, indexExcludes(s.label, sha256) == nil {
                return s.label
            }
        }
        return registryAllowed ? "registry" : nil
    }

    /// Why mirror `label` is not asked for `sha256` this run, from what `readIndexes()` found:
    /// its index does not list the blob, or it did not answer; nil when it may be asked.
    func indexExcludes(_ label: String, _ sha256: String) -> String? {
        switch indexes[label] {
        case .listed(let held, _)? where !held.contains(sha256): return "its \(BundleLayout.indexName) does not list sha256 \(sha256.prefix(12))…"
        case .unreachable(let error)?: return "not used this run (\(SyncFailure(error).message))"
        default: return nil
        }
    }

    /// The entries of mirror `label`'s index for `sha256` that carry a publisher signature.
    func indexEntries(_ label: String, _ sha256: String) -> [PinnedArtifact] {
        if case .listed(_, let signed)? = indexes[label] { return signed[sha256] ?? [] }
        return []
    }

    /// Why no eligible source is expected to serve `sha256`: each source and its reason, as a
    /// failed fetch would list them.
    func whyNoSource(sha256: String, isPrivate: Bool) -> String {
        let tried = eligible(isPrivate: isPrivate).map { s -> String in
            if s.bundle != nil { return "\(s.label): no \(BundleLayout.blobPath(sha256))" }
            if let oci = s.oci { return "\(s.label): " + (oci.excludes(sha256) ?? oci.notListed(sha256) ?? "may hold it") }
            if let bucket = s.s3 { return "\(s.label): " + (bucket.excludes(sha256) ?? "may hold it") }
            return "\(s.label): " + (indexExcludes(s.label, sha256) ?? "this registry client cannot download from mirrors")
        }
        return tried.isEmpty ? "no source can serve it" : tried.joined(separator: "; ")
    }

    /// Installs `target` as `<store>/<modelId>.bin`.
    /// - Parameters:
    ///   - registryRefusal: why the registry may not be used for it (`--offline`, `"fallback":
    ///     "none"`, a locked artifact it no longer serves), or nil when it may.
    ///   - registry: downloads from the registry (with its retries and session token).
    ///   - warn: reports a source that served bad bytes, whose certificate does not verify, or
    ///     that a proxy refused (407, 403, a malformed proxy setting).
    /// - Throws: the registry's error, or a `SyncFailure` listing every source tried.
    func fetch(_ modelId: String, target: ArtifactTarget, store: () throws -> StorageDirectory, run: DownloadOptions,
               progress: @escaping @Sendable (Int64, Int64?) -> Void, warn: @Sendable (String) -> Void, registryRefusal: String?,
               registry: @Sendable () async throws -> DownloadedModel) async throws -> Fetched {
        var skipped: [String] = []
        for s in eligible(isPrivate: target.needsSession) {
            try Task.checkCancellation()
            do {
                let model: DownloadedModel
                if let bundle = s.bundle {
                    let blob = bundle.blob(target.sha256)
                    guard FileManager.default.fileExists(atPath: blob.path) else {
                        skipped.append("\(s.label): no \(BundleLayout.blobPath(target.sha256))")
                        continue
                    }
                    let directory = try store()
                    model = try await Self.offPool { cancelled in
                        try directory.installCopy(of: blob.path, as: modelId, sha256: target.sha256, size: target.size, version: target.version,
                                                  stop: cancelled)
                    }
                    progress(model.size, model.size)
                } else if let oci = s.oci {
                    if let why = oci.excludes(target.sha256) {
                        if let error = oci.unusable as? OCIError, error.isConfigurationProblem { warn("\(s.label) was not used for \(modelId): \(error.description)") }
                        skipped.append("\(s.label): \(why)")
                        continue
                    }
                    model = try await oci.download(modelId, target: target, allowPlainHTTP: s.source.allowsPlainHTTP, run: run,
                                                   idleTimeout: mirrorIdleTimeout, progress: progress)
                } else if case .mirror(let base) = s.source.kind, let mirrorClient {
                    if let why = indexExcludes(s.label, target.sha256) {
                        if case .unreachable(let error)? = indexes[s.label], Self.isConfigurationProblem(error) {
                            warn("\(s.label) was not used for \(modelId): \(SyncFailure(error).message)")
                        }
                        skipped.append("\(s.label): \(why)")
                        continue
                    }
                    let expected = ExpectedArtifact(sha256: target.sha256, size: target.size, version: target.version)
                    model = try await mirrorClient.download(modelId, url: ArtifactSource.blobURL(base, target.sha256),
                                                                      allowPlainHTTP: s.source.allowsPlainHTTP, expecting: expected,
                                                                      run: run, idleTimeout: mirrorIdleTimeout, progress: progress)
                } else if let bucket = s.s3 {
                    if let why = bucket.excludes(target.sha256) {
                        if let error = bucket.unusable as? S3Error, error.isConfigurationProblem { warn("\(s.label) was not used for \(modelId): \(error.description)") }
                        skipped.append("\(s.label): \(why)")
                        continue
                    }
                    model = try await bucket.download(modelId, target: target, run: run, idleTimeout: mirrorIdleTimeout, progress: progress)
                } else {
                    skipped.append("\(s.label): this registry client cannot download from mirrors")
                    continue
                }
                return Fetched(model: model, source: s.label, skipped: skipped)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                let why = Self.describe(error, target: target)
                warnIfNeeded(error, why: why, from: s, modelId: modelId, target: target, warn: warn)
                skipped.append("\(s.label): \(why)")
            }
        }
        if let registryRefusal {
            let tried = skipped.isEmpty ? "no source can serve it" : skipped.joined(separator: "; ")
            throw SyncFailure(kind: .terminal, message: "\(target.version) (sha256 \(target.sha256.prefix(12))…) is not available: \(tried); \(registryRefusal)")
        }
        return Fetched(model: try await registry(), source: "registry", skipped: skipped)
    }

    /// Says what a failed source needs when it is not a passing failure: corrupt bytes, a
    /// configuration problem someone must fix, a broken bundle, a copy whose index lists a blob it
    /// does not serve (the source is skipped either way).
    private func warnIfNeeded(_ error: any Error, why: String, from s: ResolvedSource, modelId: String, target: ArtifactTarget,
                              warn: @Sendable (String) -> Void) {
        if case .integrityMismatch? = error as? APIError {
            warn("\(s.label) served a corrupt copy of \(modelId) \(target.version) (\(why)); it was rejected and not installed")
        } else if Self.isConfigurationProblem(error) || (error as? OCIError)?.isConfigurationProblem == true
                    || (error as? S3Error)?.isConfigurationProblem == true {
            // A configuration problem someone must fix (a certificate, a proxy that wants
            // credentials, refuses the mirror or is malformed), not a passing failure: say so.
            warn("\(s.label) was not used for \(modelId): \(why)")
        } else if s.bundle != nil, case .fileSystem? = error as? APIError {
            // A blob that is a FIFO, a symbolic link, unreadable: the bundle needs fixing.
            warn("\(s.label) was not used for \(modelId): \(why)")
        } else if case .unexpectedStatus(404, _)? = error as? APIError, let oci = s.oci, oci.artifact != nil {
            warn("\(s.label) lists sha256 \(target.sha256.prefix(12))… (\(modelId) \(target.version)) in its artifact but answered 404 for the blob — push it again with \(Remedy.export(to: "\(oci.reference)"))")
        } else if case .unexpectedStatus(404, _)? = error as? APIError, let bucket = s.s3, bucket.lists(target.sha256) {
            warn("\(s.label) lists sha256 \(target.sha256.prefix(12))… (\(modelId) \(target.version)) in its \(BundleLayout.indexName) but answered 404 for the blob — its copy is incomplete: export to it again (\(Remedy.export(to: bucket.settings.location.description)))")
        } else if case .unexpectedStatus(404, _)? = error as? APIError, case .listed? = indexes[s.label] {
            // Its own index says it holds the blob: the mirror's copy is incomplete.
            warn("\(s.label) lists sha256 \(target.sha256.prefix(12))… (\(modelId) \(target.version)) in its \(BundleLayout.indexName) but answered 404 for the blob — its copy of the bundle is incomplete: copy the bundle again (blobs first, index.json last)")
        }
    }

    /// Runs blocking file I/O (a whole copy) on a dispatch thread, not the cooperative pool
    /// (with the caller's `RemedyWording`, which a dispatch thread does not inherit). `body` is
    /// given whether the calling task was cancelled since (a SIGTERM), which a dispatch thread
    /// cannot ask `Task` itself: a copy stops between blocks.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable (_ cancelled: @escaping @Sendable () -> Bool) throws -> T) async throws -> T {
        let wording = RemedyWording.current
        let cancelled = Locked(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                DispatchQueue.global(qos: .utility).async {
                    continuation.resume(with: Result { try RemedyWording.$current.withValue(wording) { try body { cancelled.current } } })
                }
            }
        } onCancel: {
            cancelled.withLock { $0 = true }
        }
    }

    /// A short reason for a source's failure.
    static func describe(_ error: any Error, target: ArtifactTarget) -> String {
        switch error as? APIError {
        case .integrityMismatch(_, let actual)?:
            return "its blob has sha256 \(actual.prefix(12))…, not \(target.sha256.prefix(12))…"
        case .bodyTooShort(_, let received)?:
            return "its blob has \(received) bytes, not \(target.size)"
        case .bodyTooLong?:
            return "its blob is longer than \(target.size) bytes"
        case .unexpectedStatus(let status, _)?:
            return status == 404 ? "404 (it does not hold the blob)" : "HTTP \(status)"
        default:
            return SyncFailure(error).message
        }
    }
}

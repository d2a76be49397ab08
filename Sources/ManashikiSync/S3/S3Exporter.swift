import Foundation
import ManashikiCore
import Manashiki

/// Writes a store's verified models into a bucket in the bundle layout (`manashiki-sync export
/// s3://bucket/prefix/`): `<prefix>blobs/sha256/<hex>` per model, `<prefix>index.json` last, so
/// one export serves nginx, a bundle directory and a bucket alike, and a reader never sees an
/// index naming a blob that is not there.
///
/// * **Verified on the way out**: each file is hashed as it is read and checked against the
///   store's record before the upload completes; a single `PUT` (up to `singlePutLimit`, at most
///   16 MiB) is signed with the blob's own SHA-256 as its payload hash, so the store rejects any
///   other bytes; larger blobs go as a multipart upload whose parts are hashed as read, each
///   signed with its own SHA-256, `parallelParts` at a time (memory: that many parts).
/// * **Nothing uploaded twice**: a blob already there with the same size and our
///   `x-amz-meta-sha256` is skipped (`Report.present`); one without them (written by another
///   tool, or damaged) is uploaded again.
/// * **No orphaned parts**: a multipart upload that fails or is cancelled (SIGINT, SIGTERM) is
///   aborted; uploads an earlier, killed export left under `<prefix>blobs/sha256/` are aborted
///   at the start (`Report.abortedUploads`): run one export per prefix at a time.
/// * **The index** lists what this run selected plus the entries of the old index whose blob
///   is still there with its size; an index of a newer format is never overwritten.
/// * **A bucket that refuses** (credentials, a read-only identity, no such bucket) stops the
///   export before anything is written, with the operation, bucket, key, status, S3 code and
///   what to do (`S3Error`).
public enum S3Exporter {
    /// Export settings.
    public struct Options: Sendable {
        /// The largest blob sent in one `PUT`; larger ones go multipart. At most 16 MiB (the
        /// AWS CLI uses 8). Default 16 MiB.
        public var singlePutLimit = 16 << 20
        /// The part size of a multipart upload (at least 5 MiB, S3's minimum). Default 16 MiB.
        public var partSize = 16 << 20
        /// Parts uploaded at once.
        public var parallelParts = 4
        /// Export private models too.
        public var includePrivate = false
        /// One bandwidth limit for the export; nil for none.
        public var rateLimiter: BandwidthLimiter?
        /// Small objects to put next to each blob, as `(path relative to the prefix, bytes)`:
        /// the hook for what travels with a model (publisher signatures, #36). Uploaded after the
        /// blob and before the index; an error fails that model. Default: the store's copy of the
        /// publisher signature the index entry names (read through the store's descriptors,
        /// checked against the digest and size the entry names).
        public var companions: @Sendable (PinnedArtifact, StoreLayout) throws -> [(path: String, data: Data)] = { artifact, store in
            guard let signature = artifact.signature else { return [] }
            return [(BundleLayout.blobPath(signature.sha256), try StoredSignatures.blob(artifact.modelId, signature, in: store))]
        }

        /// The defaults.
        public init() {}
    }

    /// What an export did.
    public struct Report: Sendable {
        /// Where it went.
        public var location: S3Location
        /// Blobs uploaded by this run.
        public var uploaded: [PinnedArtifact] = []
        /// Blobs the bucket already held (same size and `x-amz-meta-sha256`).
        public var present: [PinnedArtifact] = []
        /// Models that were not exported, and why.
        public var failures: [BundleExporter.Failure] = []
        /// Bytes sent (blobs and companions).
        public var bytesUploaded: Int64 = 0
        /// Multipart uploads an interrupted export had left, aborted by this run.
        public var abortedUploads: [String] = []
        /// Things to tell the operator (a listing the credentials may not make…).
        public var warnings: [String] = []
        /// The index written (nil: none was, the export stopped first).
        public var index: BundleIndex?
        /// Where the credentials came from (never a secret).
        public var credentials = "not yet looked up"
        /// The endpoint and region used.
        public var endpoint = ""
        /// Every model now in the bucket's index from this run.
        public var exported: [PinnedArtifact] { uploaded + present }
    }

    /// Exports `selection` from `store` to `settings.location`.
    /// - Parameters:
    ///   - transport: the run's transport (TLS trust, proxies); signing is added here.
    ///   - retry: the run's retry policy (SlowDown, 5xx, the network).
    ///   - progress: `(modelId, bytesSent, total)` as parts complete.
    /// - Throws: `ArtifactFileError` (no usable store state, an index this version must not
    ///   overwrite), `S3Error` when the bucket cannot be used at all.
    public static func export(store: StoreLayout, to settings: S3Settings, selection: BundleExporter.Selection, options: Options,
                              transport: any HTTPTransport, environment: SyncEnvironment, retry: RetryPolicy = RetryPolicy(),
                              progress: @escaping @Sendable (String, Int64, Int64) -> Void = { _, _, _ in }) async throws -> Report {
        let client = try S3Client.make(settings, environment: environment, transport: transport, retry: retry)
        return try await export(store: store, client: client, selection: selection, options: options, progress: progress)
    }

    static func export(store: StoreLayout, client: S3Client, selection: BundleExporter.Selection, options: Options,
                       progress: @escaping @Sendable (String, Int64, Int64) -> Void) async throws -> Report {
        let location = client.settings.location
        var report = Report(location: location)
        let candidates = try BundleExporter.exportable(store: store, selection: selection, includePrivate: options.includePrivate, failures: &report.failures)
        // The old index first: it checks the bucket and the credentials before anything is written.
        let existing = try await existingIndex(client)
        report.credentials = await client.provider.sourceName
        report.abortedUploads = await abortLeftovers(client, warnings: &report.warnings)
        for artifact in candidates {
            try Task.checkCancellation()
            do {
                let key = location.blobKey(artifact.sha256)
                if let head = try await client.headObject(key), head.size == artifact.size, head.sha256 == artifact.sha256 {
                    report.present.append(artifact)
                    progress(artifact.modelId, artifact.size, artifact.size)
                } else {
                    report.bytesUploaded += try await upload(artifact, file: store.modelFile(artifact.modelId), client: client, options: options, progress: progress)
                    report.uploaded.append(artifact)
                }
                for companion in try options.companions(artifact, store) {
                    report.bytesUploaded += try await putSmall(companion.data, key: location.prefix + companion.path, client: client)
                }
            } catch let error as S3Error where error.isConfigurationProblem {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                report.failures.append(BundleExporter.Failure(modelId: artifact.modelId, message: reason(error, artifact)))
            }
        }
        let fresh = report.exported
        let kept = try await keptEntries(existing, fresh: fresh, client: client)
        let index = BundleIndex(models: kept + fresh)
        let body = try index.encoded()
        try Task.checkCancellation()
        try await client.putObject(location.indexKey, body: body, sha256: SHA256Hasher.hash(body).hex, contentType: "application/json")
        report.index = index
        report.endpoint = "\(client.endpoint.shown) (\(client.endpoint.region))"
        return report
    }

    /// The entries of the bucket's current index (none when there is none yet).
    /// - Throws: `ArtifactFileError` for an index this version must not overwrite; `S3Error`.
    static func existingIndex(_ client: S3Client) async throws -> [PinnedArtifact] {
        let key = client.settings.location.indexKey
        guard let data = try await client.getObject(key, maxBytes: ArtifactFetcher.indexLimit) else { return [] }
        do { return try BundleIndex.decode(data, location: "s3://\(client.bucket)/\(key)").models } catch var error as ArtifactFileError {
            if case .other = error.cause {
                error.hint = "export never overwrites a file it cannot read as a bundle index: if this is the right prefix, move index.json away and export again; otherwise choose another prefix"
            }
            throw error
        }
    }

    /// Entries of the old index that stay: not re-exported now, and their blob still there with
    /// the recorded size (one listing; a `HEAD` each when listing is not allowed).
    static func keptEntries(_ existing: [PinnedArtifact], fresh: [PinnedArtifact], client: S3Client) async throws -> [PinnedArtifact] {
        let freshKeys = Set(fresh.map { "\($0.modelId) \($0.sha256)" })
        let candidates = existing.filter { !freshKeys.contains("\($0.modelId) \($0.sha256)") }
        guard !candidates.isEmpty else { return [] }
        let location = client.settings.location
        var sizes: [String: Int64] = [:]
        do {
            for object in try await client.listObjects(prefix: location.blobPrefix) { sizes[object.key] = object.size }
        } catch let error as S3Error where error.status == 403 {
            for entry in candidates { sizes[location.blobKey(entry.sha256)] = try await client.headObject(location.blobKey(entry.sha256))?.size }
        }
        return candidates.filter { sizes[location.blobKey($0.sha256)] == $0.size }
    }

    /// Aborts the multipart uploads an interrupted export left under the blob prefix; returns
    /// their keys. A bucket that does not let these credentials list uploads gets a warning.
    static func abortLeftovers(_ client: S3Client, warnings: inout [String]) async -> [String] {
        let prefix = client.settings.location.blobPrefix
        let pending: [S3Client.PendingUpload]
        do { pending = try await client.listMultipartUploads(prefix: prefix) } catch {
            warnings.append("could not look for multipart uploads an interrupted export left under s3://\(client.bucket)/\(prefix) (\(SyncFailure(error).message)); add a lifecycle rule that aborts incomplete multipart uploads")
            return []
        }
        var aborted: [String] = []
        for upload in pending {
            do {
                try await client.abortMultipartUpload(upload.key, uploadId: upload.uploadId)
                aborted.append(upload.key)
            } catch {
                warnings.append("could not abort the interrupted multipart upload of s3://\(client.bucket)/\(upload.key): \(SyncFailure(error).message)")
            }
        }
        return aborted
    }

    /// A model's failure text.
    static func reason(_ error: any Error, _ artifact: PinnedArtifact) -> String {
        if let api = error as? APIError {
            switch api {
            case .integrityMismatch, .bodyTooShort, .bodyTooLong:
                return "the store's file no longer matches its recorded \(artifact.version) (sha256 \(artifact.sha256.prefix(12))…); not exported — run \(Remedy.verifyRepair)"
            default: break
            }
        }
        return "not exported: \(SyncFailure(error).message)"
    }
}

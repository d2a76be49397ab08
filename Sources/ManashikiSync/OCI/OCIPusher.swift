import Foundation
import ManashikiCore
import Manashiki

/// Pushes a store's verified models to an OCI registry as one artifact (`manashiki-sync export
/// oci://HOST/REPO:TAG`): each model file a blob whose digest is the model's own SHA-256 (no
/// re-packing), a bundle index as the config, and an image manifest naming them
/// (`OCIMediaTypes`), put under the tag last.
///
/// * **Nothing is uploaded twice**: each blob is asked for with `HEAD` first; one the
///   repository lacks is mounted from another repository of the registry when `mountFrom`
///   names one that holds it (`POST …?mount=&from=`), else uploaded.
/// * **Uploads are chunked and resumable**: a blob larger than `chunkSize` goes in `PATCH`
///   chunks, each acknowledged chunk recorded in `OCIUploadStates`; an interrupted push (a
///   network failure, kill -9) continues the registry's upload session where the registry says
///   it stands. A registry that cannot continue it (distribution refuses an upload whose last
///   chunk was cut off) gets the blob again from the start, with a note.
/// * **The bytes are verified on the way out**: each file is hashed as it is read and the upload
///   is completed only when the digest matches the store's record (the registry checks the
///   digest again); a file that no longer matches is reported and not pushed.
/// * **The tag moves last**, to a manifest listing exactly what this run selected and the
///   registry now holds (a tag is a snapshot, not merged with what it named before; the earlier
///   manifest stays in the registry under its digest). A tag that names something other than our
///   artifact (a container image) is never moved.
public enum OCIPusher {
    /// Push settings.
    public struct Options: Sendable {
        /// The largest request body; larger blobs go in chunks of this size. Default 16 MiB.
        public var chunkSize = 16 << 20
        /// One bandwidth limit for the push (`policies.maxBytesPerSecond`); nil for none.
        public var rateLimiter: BandwidthLimiter?
        /// Repositories of the same registry to mount blobs from.
        public var mountFrom: [String] = []
        /// Export private models too.
        public var includePrivate = false
        /// Where the source's credentials come from (nil: the container tools' auth files).
        public var credentials: OCICredentialSource?
        /// Plain http to a host other than this machine is allowed.
        public var allowPlainHTTP = false
        /// How long and how slowly the registry may answer a request without a body
        /// (`policies.documents`).
        public var documentLimits = DocumentLimits.default

        /// The defaults.
        public init() {}
    }

    /// What a push did.
    public struct Report: Sendable {
        /// Where it went.
        public var reference: OCIReference
        /// Blobs uploaded by this run.
        public var uploaded: [PinnedArtifact] = []
        /// Blobs the repository already held (`HEAD`).
        public var present: [PinnedArtifact] = []
        /// Blobs mounted from another repository.
        public var mounted: [PinnedArtifact] = []
        /// Models that were not pushed, and why.
        public var failures: [BundleExporter.Failure] = []
        /// Bytes sent.
        public var bytesUploaded: Int64 = 0
        /// Bytes an interrupted upload had already delivered, not sent again.
        public var bytesResumed: Int64 = 0
        /// Uploads that could not be continued and started over, and why.
        public var restarted: [String] = []
        /// The manifest's digest under the tag (nil: the tag was not moved).
        public var manifestDigest: String?
        /// The index the artifact carries.
        public var index = BundleIndex(models: [])

        /// Every model now in the artifact.
        public var exported: [PinnedArtifact] { uploaded + present + mounted }
    }

    /// Pushes `selection` from `store` to `reference` (which must have a tag).
    /// - Parameters:
    ///   - transport: the run's transport (TLS trust, proxies); authentication is added here.
    ///   - progress: `(modelId, bytesSent, total)` as chunks are acknowledged.
    /// - Throws: `ArtifactFileError` (no usable store state), `OCIError` when the registry
    ///   cannot be used at all (credentials, permissions, the tag names something else), an
    ///   `APIError` when it cannot be reached.
    public static func push(store: StoreLayout, to reference: OCIReference, selection: BundleExporter.Selection, options: Options,
                            transport: any HTTPTransport, environment: SyncEnvironment, baseDirectory: URL?,
                            progress: @escaping @Sendable (String, Int64, Int64) -> Void = { _, _, _ in }) async throws -> Report {
        guard let tag = reference.tag else { throw OCIError.invalidArtifact(reference, detail: "a push needs a tag (oci://HOST/REPO:TAG)") }
        var report = Report(reference: reference)
        let candidates = try BundleExporter.exportable(store: store, selection: selection, includePrivate: options.includePrivate, failures: &report.failures)
        let found = try OCICredentials.lookup(reference, source: options.credentials, environment: environment, baseDirectory: baseDirectory)
        let client = OCIRegistryClient(reference, base: transport, found: found, push: true, mountFrom: options.mountFrom,
                                       allowPlainHTTP: options.allowPlainHTTP, documentLimits: options.documentLimits)
        try await client.ping()
        try await checkTag(client, tag)
        let states = OCIUploadStates(store: store)
        for candidate in candidates {
            try Task.checkCancellation()
            let artifact = await pushSignature(candidate, store: store, client: client, report: &report)
            do {
                if let held = try await client.blobSize(artifact.sha256), held == artifact.size || held < 0 {
                    report.present.append(artifact)
                    continue
                }
                let file = store.modelFile(artifact.modelId)
                switch try await upload(artifact, file: file, client: client, options: options, states: states, progress: progress) {
                case .mounted: report.mounted.append(artifact)
                case .uploaded(let sent, let resumed, let restarted):
                    report.uploaded.append(artifact)
                    report.bytesUploaded += sent
                    report.bytesResumed += resumed
                    if let restarted { report.restarted.append("\(artifact.modelId): \(restarted)") }
                }
            } catch let error as OCIError where error.isConfigurationProblem {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                report.failures.append(BundleExporter.Failure(modelId: artifact.modelId, message: reason(error, artifact)))
            }
        }
        let exported = report.exported
        guard !exported.isEmpty || candidates.isEmpty else { return report }
        let (manifest, config, configDigest) = try OCIArtifact.build(exported)
        if try await client.blobSize(configDigest) == nil {
            guard case .session(let session, _) = try await client.startUpload(mounting: nil, from: nil) else {
                throw OCIError.registry(registry: client.registryName, operation: "POST blob upload", status: 201, code: nil, message: "no upload session")
            }
            try await client.finishUpload(session, sha256: configDigest, last: config)
        }
        report.manifestDigest = try await client.putManifest(manifest, tag: tag)
        report.index = BundleIndex(models: exported)
        return report
    }

    /// Refuses to move a tag that names something other than our artifact.
    static func checkTag(_ client: OCIRegistryClient, _ tag: String) async throws {
        do {
            let (type, _, body) = try await client.manifest(tag: tag)
            _ = try OCIArtifact.checkManifest(body, contentType: type, reference: client.reference)
        } catch OCIError.tagUnknown, OCIError.repositoryUnknown {
            return // a new tag, or a repository the push creates
        } catch OCIError.notAnArtifact(let ref, let found) {
            throw OCIError.invalidArtifact(ref, detail: "the tag already names \(found), not a Manashiki model artifact; it is not moved — push to another tag, or delete that tag first")
        } catch OCIError.invalidArtifact {
            return // ours, but unreadable: replacing it repairs it
        }
    }

    /// How a blob got into the repository.
    enum Uploaded {
        case mounted
        /// Bytes sent, bytes an earlier run had delivered, and why an earlier upload was not continued.
        case uploaded(sent: Int64, resumed: Int64, restarted: String?)
    }

    /// Uploads one blob, continuing an interrupted upload when the registry can.
    static func upload(_ artifact: PinnedArtifact, file: URL, client: OCIRegistryClient, options: Options, states: OCIUploadStates,
                       progress: @escaping @Sendable (String, Int64, Int64) -> Void) async throws -> Uploaded {
        let reference = client.reference
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: file) } catch {
            throw SyncFailure(kind: .terminal, message: "the store's file \(file.lastPathComponent) is missing or unreadable; not exported — run \(Remedy.sync)")
        }
        defer { try? handle.close() }
        let size = (try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int64) ?? -1
        guard size == artifact.size else { throw APIError.bodyTooShort(expected: artifact.size, received: max(0, size)) }

        let (resumable, resumedAt, restarted) = try await resumePoint(artifact, client: client, states: states)
        var offset = resumedAt
        var chunkSize = Int64(max(1 << 16, options.chunkSize))
        var session: URL
        if let resumable {
            session = resumable
        } else {
            switch try await client.startUpload(mounting: artifact.sha256, from: options.mountFrom.first { $0 != reference.repository }) {
            case .mounted: return .mounted
            case .session(let url, let minimum):
                session = url
                if let minimum { chunkSize = max(chunkSize, minimum) }
            }
        }
        let resumed = offset
        let hasher = try hashPrefix(handle, upTo: offset, size: artifact.size)
        var sent: Int64 = 0
        if offset > 0 { progress(artifact.modelId, offset, artifact.size) }
        while offset < artifact.size {
            try Task.checkCancellation()
            let chunk = try handle.read(upToCount: Int(min(chunkSize, artifact.size - offset))) ?? Data()
            guard !chunk.isEmpty else { throw APIError.bodyTooShort(expected: artifact.size, received: offset) }
            hasher.update(chunk)
            try await options.rateLimiter?.acquire(chunk.count)
            if offset == 0 && Int64(chunk.count) == artifact.size {
                // Small enough for one request: POST, then PUT with the bytes (the monolithic upload).
                let digest = hasher.finalize().hex
                guard digest == artifact.sha256 else {
                    await client.cancelUpload(session)
                    throw APIError.integrityMismatch(expected: artifact.sha256, actual: digest)
                }
                try await client.finishUpload(session, sha256: artifact.sha256, last: chunk)
                progress(artifact.modelId, artifact.size, artifact.size)
                return .uploaded(sent: Int64(chunk.count), resumed: 0, restarted: restarted)
            }
            session = try await client.patch(session, chunk, at: offset)
            offset += Int64(chunk.count)
            sent += Int64(chunk.count)
            states.save(OCIUploadStates.Saved(registry: reference.registry, repository: reference.repository, sha256: artifact.sha256,
                                              location: session.absoluteString, offset: offset), reference)
            progress(artifact.modelId, offset, artifact.size)
        }
        let digest = hasher.finalize().hex
        guard digest == artifact.sha256 else {
            await client.cancelUpload(session)
            states.remove(reference, artifact.sha256)
            throw APIError.integrityMismatch(expected: artifact.sha256, actual: digest)
        }
        try await client.finishUpload(session, sha256: artifact.sha256, last: Data())
        states.remove(reference, artifact.sha256)
        return .uploaded(sent: sent, resumed: resumed, restarted: restarted)
    }

    /// Where an interrupted upload of `artifact` stands, when the registry can continue it: its
    /// next URL and offset; else nil, and why it starts over (when there was one).
    static func resumePoint(_ artifact: PinnedArtifact, client: OCIRegistryClient, states: OCIUploadStates) async throws -> (URL?, Int64, String?) {
        let reference = client.reference
        guard let saved = states.load(reference, artifact.sha256), let url = URL(string: saved.location) else { return (nil, 0, nil) }
        states.remove(reference, artifact.sha256)
        if let (next, held) = try await client.uploadStatus(url), held <= artifact.size {
            return (next, (held == 1 && saved.offset == 0) ? 0 : held, nil) // distribution says 0-0 for an empty upload
        }
        return (nil, 0, "the registry could not continue the interrupted upload (it had \(saved.offset) bytes acknowledged), so it was uploaded again from the start")
    }

    /// A hasher fed with the file's first `offset` bytes (those the registry already holds: a
    /// local read), the file positioned after them.
    static func hashPrefix(_ handle: FileHandle, upTo offset: Int64, size: Int64) throws -> SHA256Hasher {
        let hasher = SHA256Hasher()
        var hashed: Int64 = 0
        try handle.seek(toOffset: 0)
        while hashed < offset {
            let block = try handle.read(upToCount: Int(min(4 << 20, offset - hashed))) ?? Data()
            guard !block.isEmpty else { throw APIError.bodyTooShort(expected: size, received: hashed) }
            hasher.update(block)
            hashed += Int64(block.count)
        }
        return hasher
    }

    /// A model's failure text.
    static func reason(_ error: any Error, _ artifact: PinnedArtifact) -> String {
        if let api = error as? APIError {
            switch api {
            case .integrityMismatch, .bodyTooShort, .bodyTooLong:
                return "the store's file no longer matches its recorded \(artifact.version) (sha256 \(artifact.sha256.prefix(12))…); not pushed — run \(Remedy.verifyRepair)"
            default: break
            }
        }
        return "not pushed: \(SyncFailure(error).message)"
    }
}

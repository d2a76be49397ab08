import Foundation
import ManashikiCore

/// Downloads one artifact into a store, verified, resumable and installed atomically: the
/// transfer engine's one entrance for every source. It needs a transport, a location (a URL,
/// how to sign each request and how to refresh an expired URL: `ArtifactLocation`) and what the
/// artifact must be (`ExpectedArtifact`); no `ManashikiClient` and no API key.
///
/// The registry's `downloadModel` resolves its signed URL and comes here; so do mirrors, OCI
/// registries (over their authenticating transport) and object stores (with a request signer).
///
/// ```swift
/// let downloader = ArtifactDownloader(transport: DefaultTransport())
/// let model = try await downloader.download("whisper", from: ArtifactLocation(url: blobURL),
///                                            expecting: ExpectedArtifact(sha256: sha, size: size, version: "1.2.0"),
///                                            into: try StorageDirectory(url: store))
/// ```
///
/// 1. One download of a model into a store at a time in this process (`DownloadGate`): a call
///    that waited for another one that installed the expected digest, with the file unchanged
///    since, returns that copy with no transfer.
/// 2. The best kept partial of the same artifact is continued (`PartialFile`), else a new one.
/// 3. The bytes stream in over one or more connections (`ArtifactTransfer`), are hashed in order
///    and compared with the expected digest.
/// 4. The file is flushed and renamed over `<modelId>.bin`; the directory is flushed. An
///    interrupted transfer's bytes are kept (with their sidecar) for a later download.
///
/// The retry limits of every transfer are here too (`maxStorageRetryAfter`,
/// `meaningfulProgress`, `isResumable`, `keepsPartial`); their counts are `DownloadOptions`'.
package struct ArtifactDownloader: Sendable {
    /// Carries every request (the storage host's, and its redirects').
    package let transport: any HTTPTransport

    /// A downloader over `transport`.
    package init(transport: any HTTPTransport) { self.transport = transport }

    /// Downloads `modelId` from `location` into `store` as `<modelId>.bin`.
    /// - Parameters:
    ///   - expecting: the digest (checked; nil installs unverified bytes, the registry's path
    ///     only when it gives none), the size (bounds the transfer both ways) and the version
    ///     (reported).
    ///   - progress: `(written, total)`, called outside every lock, one call at a time, never
    ///     backwards, ending at the total.
    /// - Throws: `APIError.integrityMismatch`, `.bodyTooLong`, `.bodyTooShort`, `.fileSystem`,
    ///   `.refusedURL`, `.unexpectedStatus`, `.transport`, `.rateLimited`…; `CancellationError`.
    package func download(_ modelId: String, from location: ArtifactLocation, expecting: ExpectedArtifact,
                          into store: StorageDirectory, options: DownloadOptions = DownloadOptions(),
                          progress: (@Sendable (Int64, Int64?) -> Void)? = nil) async throws -> DownloadedModel {
        try ModelID.validate(modelId)
        if let sha256 = expecting.sha256, !Hex.isSHA256(sha256) {
            throw APIError.invalidResponse("the expected sha256 of \(modelId) is not 64 lowercase hex characters")
        }
        let gateKey = store.url.standardizedFileURL.path + "/" + modelId
        let earlier = try await DownloadGate.shared.acquire(gateKey)
        var result: DownloadedModel?
        defer { DownloadGate.shared.release(gateKey, result: result) }
        if let shared = try Self.sharedCopy(earlier, digest: expecting.sha256, progress: progress) {
            result = earlier
            return shared
        }
        let model = try await transfer(modelId, from: location, expecting: expecting, into: store, options: options, progress: progress)
        result = model
        return model
    }

    /// The copy a download that waited for another one returns instead of transferring: the
    /// one just installed, when it has the expected digest and nobody changed the file.
    private static func sharedCopy(_ earlier: DownloadedModel?, digest: String?,
                                   progress: (@Sendable (Int64, Int64?) -> Void)?) throws -> DownloadedModel? {
        guard let earlier, earlier.verified, let digest, earlier.sha256 == digest,
              let identity = earlier.fileIdentity, FileIdentity.of(earlier.localURL) == identity else { return nil }
        try Task.checkCancellation()
        var shared = earlier
        shared.resumedFrom = 0
        progress?(shared.size, shared.size)
        return shared
    }

    /// Transfers the artifact into a partial file (continuing a kept one), verifies it and
    /// installs it; an interrupted transfer's bytes are kept for a later download.
    private func transfer(_ modelId: String, from location: ArtifactLocation, expecting: ExpectedArtifact,
                          into store: StorageDirectory, options: DownloadOptions,
                          progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel {
        // Only bytes of a known artifact (digest and size) can be kept and continued later.
        let keepable: (sha256: String, size: Int64)? = if let sha256 = expecting.sha256, let size = expecting.size, options.partialRetention > 0 {
            (sha256, size)
        } else { nil }
        _ = store.removeAbandonedPartials(olderThan: options.partialRetention)
        let partial = try PartialFile.open(modelId, in: store, keepable: keepable, version: expecting.version)
        defer { partial.release() }
        let storage = try StorageLocation(location, maxRefreshes: options.maxURLRefreshes)
        let recorder: (@Sendable (ByteRangeSet?) -> Void)? = keepable == nil ? nil : { @Sendable written in partial.checkpoint(written) }
        let transfer = ArtifactTransfer(modelId: modelId, sink: OffsetSink(fd: partial.fd, path: partial.path),
                                        expectedSize: expecting.size, expectedDigest: expecting.sha256, location: storage,
                                        transport: transport, options: options, progress: progress,
                                        hashWindow: (transport.bodyBufferBudget ?? 0) / 4,
                                        recorder: recorder)
        let outcome: ArtifactTransfer.Outcome
        do {
            outcome = try await transfer.run(keeping: partial.kept)
            try Task.checkCancellation()
        } catch {
            // Every byte whose write returned is kept (a cancelled download checkpoints on its
            // way out): `run` returns only once no sidecar write or hash is left running.
            if keepable != nil && Self.keepsPartial(after: error) {
                partial.keep(transfer.ledger.written, outOfOrder: transfer.ledger.recordsParts)
            }
            throw error
        }
        let identity = FileIdentity.of(fd: partial.fd) // mtime and inode survive the flush and the rename
        try partial.install()
        var model = DownloadedModel(modelId: modelId, localURL: store.modelURL(modelId), sha256: outcome.sha256, size: outcome.size,
                                    version: expecting.version, verified: expecting.sha256 != nil)
        model.fileIdentity = identity
        model.resumedFrom = outcome.resumedFrom
        return model
    }

    /// Parses and checks a storage URL against the policy before connecting.
    /// - Throws: `APIError.refusedURL`.
    static func checkedStorageURL(_ string: String, allowingPlainHTTP: Bool = false) throws -> URL {
        guard let url = URL(string: string), url.scheme != nil else {
            throw APIError.refusedURL("the download URL is not an absolute URL")
        }
        return try checkedStorageURL(url, allowingPlainHTTP: allowingPlainHTTP)
    }

    /// Checks a storage URL against the policy before connecting.
    /// - Throws: `APIError.refusedURL`.
    static func checkedStorageURL(_ url: URL, allowingPlainHTTP: Bool = false) throws -> URL {
        if let reason = URLPolicy.refusal(for: url, allowingPlainHTTP: allowingPlainHTTP) {
            throw APIError.refusedURL("the download URL is not allowed (\(reason))")
        }
        return url
    }

    // MARK: Retry limits

    /// The longest `Retry-After` from the storage host that a download waits out itself;
    /// a longer one is handed to the caller as `APIError.rateLimited`.
    package static let maxStorageRetryAfter: Double = 30

    /// Bytes an attempt must add for the resumption after it not to count against
    /// `DownloadOptions.maxResumes`.
    package static let meaningfulProgress: Int64 = 1 << 20

    /// The longest pause between two resumptions (the first is `DownloadOptions.resumeBackoff`,
    /// doubled each time).
    package static let maxResumeBackoff: Duration = .seconds(4)

    /// Whether a transfer resumes after `error` (with `Range`, within `maxResumes`): network
    /// failures, bodies cut short and the storage host's 5xx.
    package static func isResumable(_ error: APIError) -> Bool {
        switch error {
        case .transport, .bodyTooShort: return true
        case .server(let status, _): return status >= 500
        default: return false
        }
    }

    /// Whether the bytes written before `error` are worth keeping for a later download: yes
    /// for interruptions (cancellation, network, server, deadline), no when the bytes
    /// themselves are wrong or the disk is the problem.
    package static func keepsPartial(after error: any Error) -> Bool {
        guard let error = error as? APIError else { return error is CancellationError }
        switch error {
        case .integrityMismatch, .bodyTooLong, .fileSystem: return false
        default: return true
        }
    }

    /// The error of a download that did not finish within `options.deadline`.
    package static func deadlineError(_ modelId: String, _ options: DownloadOptions) -> APIError {
        .transport("the download of \(modelId) did not finish within the \(String(format: "%g", options.deadline ?? 0)) s allowed (the connection is too slow); try again on a faster connection, or allow more time")
    }
}

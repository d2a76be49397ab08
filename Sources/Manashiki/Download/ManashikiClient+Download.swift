import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension ManashikiClient {
    /// Downloads a model, verifies its SHA-256 and installs it as `<storageDirectory>/<modelId>.bin`.
    ///
    /// 1. `GET /api/download/{modelId}` resolves a short-lived signed URL (the `session` token
    ///    is sent as `Authorization: Bearer` on this request only).
    /// 2. The artifact streams from the storage host in chunks (512 KiB with libcurl) into a
    ///    private temporary file, hashed in the same pass; `progress(bytesWritten, totalBytes)`
    ///    is called after each chunk (`totalBytes` is nil when the storage host sends no length).
    /// 3. The digest is compared with the registry's (skipped only when it gives none); the
    ///    file is flushed to disk, renamed over `<modelId>.bin` and the directory flushed.
    ///
    /// A failure or cancellation at any point leaves the previously installed file untouched
    /// and removes the temporary file. An expired URL is refreshed and the transfer continues
    /// where it stopped (`Range`); transient network failures resume a bounded number of times,
    /// and a storage host's `429` with a `Retry-After` of up to 30 s is waited out the same way.
    ///
    /// Calls for the same model into the same store at once (two views, a button tapped twice,
    /// an app download while `ModelSync.restore` runs in this process) run one at a time: the
    /// second waits (cancellably; cancelling it does not disturb the first). When the first
    /// succeeds, the second still resolves its own ticket (its key and session are checked) and,
    /// if the registry serves the digest just installed and the file is unchanged, returns that
    /// same copy with no transfer (one final progress report of the whole size); otherwise it
    /// downloads on its own. `<modelId>.bin` is always one whole verified copy, replaced by an
    /// atomic rename. A call with no waiting before it re-downloads and writes a new copy
    /// (guide §6).
    ///
    /// `progress` is `@Sendable` (the guide writes `((Int64, Int64?) -> Void)?`): it is called
    /// from the transfer, not the caller's actor, which Swift 6 requires to be spelled. A
    /// closure literal, as in the guide's samples, is inferred `@Sendable`, so they compile as
    /// written; hop to the main actor for UI (`Task { @MainActor in … }`, guide §9). Values never
    /// go backwards except when the storage host ignores `Range` and the transfer restarts from 0,
    /// and never exceed the total.
    ///
    /// ```swift
    /// let model = try await client.downloadModel("whisper-medical-ja-fp16") { written, total in
    ///     if let total { print("\(written) / \(total) bytes") }
    /// }
    /// print(model.localURL, model.sha256)
    /// ```
    /// - Throws: `APIError.integrityMismatch`, `.sessionRequired`, `.invalidSession`,
    ///   `.modelNotFound`, `.refusedURL`, `.bodyTooLong`, `.bodyTooShort`, `.fileSystem`, …;
    ///   `CancellationError` when the task is cancelled.
    public func downloadModel(
        _ modelId: String,
        session: String? = nil,
        progress: (@Sendable (Int64, Int64?) -> Void)? = nil
    ) async throws -> DownloadedModel {
        try await downloadModel(modelId, session: session, expecting: nil, options: DownloadOptions(), progress: progress)
    }

    /// Downloads a model like `downloadModel(_:session:progress:)`, first checking that the
    /// registry serves what the caller expects (digest, size, version); a digest in
    /// `expecting` is enforced even if the registry gives none.
    public func downloadModel(
        _ modelId: String,
        session: String?,
        expecting: ExpectedArtifact?,
        options: DownloadOptions = DownloadOptions(),
        progress: (@Sendable (Int64, Int64?) -> Void)? = nil
    ) async throws -> DownloadedModel {
        try await download(modelId, from: .registry(session: session), expecting: expecting, options: options, progress: progress)
    }

    /// Downloads an artifact from a mirror (`<mirror>/blobs/sha256/<hex>`, see ManashikiSync's
    /// bundles) through the same verified path as `downloadModel`: streamed into a locked
    /// partial file, hashed in the same pass, size bound both ways, compared with `expecting`'s
    /// digest, flushed and renamed over `<modelId>.bin`. The mirror gets no `X-API-Key`, no
    /// `Authorization` and no request to the registry; a 403/410 is an error (nothing to refresh).
    /// - Parameter allowPlainHTTP: allow http to hosts other than this machine (the operator
    ///   marked the mirror so).
    /// - Throws: like `downloadModel`; `APIError.invalidResponse` when `expecting` lacks a digest or size.
    package func downloadModel(_ modelId: String, fromMirror url: URL, allowPlainHTTP: Bool = false, expecting: ExpectedArtifact,
                               options: DownloadOptions = DownloadOptions(),
                               progress: (@Sendable (Int64, Int64?) -> Void)? = nil) async throws -> DownloadedModel {
        guard expecting.sha256 != nil, expecting.size != nil else {
            throw APIError.invalidResponse("a mirror download needs the expected digest and size")
        }
        return try await download(modelId, from: .mirror(url, allowPlainHTTP: allowPlainHTTP), expecting: expecting, options: options, progress: progress)
    }

    /// Where `download` gets its bytes.
    enum DownloadOrigin {
        /// The registry's signed URL (`GET /api/download/{id}`, refreshed when it expires).
        case registry(session: String?)
        /// A fixed URL on a mirror.
        case mirror(URL, allowPlainHTTP: Bool)
    }

    /// The verified transfer shared by registry and mirror downloads: the ticket, the partial
    /// file (a kept one continued), the transfer (`ArtifactTransfer`), the install.
    func download(_ modelId: String, from origin: DownloadOrigin, expecting: ExpectedArtifact?, options: DownloadOptions,
                  progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel {
        try ModelID.validate(modelId)
        var session: String?
        if case .registry(let token) = origin { session = token }
        if let session, session.isEmpty || session.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) {
            throw APIError.invalidSession // would corrupt the header; never sent
        }
        let store = try openStorage()
        // One download of a model into a store at a time in this process (`DownloadGate`).
        let gateKey = store.url.standardizedFileURL.path + "/" + modelId
        let earlier = try await DownloadGate.shared.acquire(gateKey)
        var result: DownloadedModel?
        defer { DownloadGate.shared.release(gateKey, result: result) }
        let ticket: DownloadTicket
        switch origin {
        case .registry:
            ticket = try await resolveDownload(modelId, session: session, expecting: expecting)
            // A call that waited for another download of this model gets that copy when the
            // registry still serves the same digest and nobody changed the file since.
            if let shared = try Self.sharedCopy(earlier, digest: expecting?.sha256 ?? ticket.sha256, progress: progress) {
                result = earlier
                return shared
            }
        case .mirror(let url, _):
            ticket = DownloadTicket(downloadUrl: url.absoluteString, sha256: expecting?.sha256, size: expecting?.size, expiresIn: nil, version: expecting?.version)
        }
        let model = try await transfer(modelId, ticket: ticket, from: origin, session: session, expecting: expecting,
                                       into: store, options: options, progress: progress)
        result = model
        return model
    }

    /// The copy a download that waited for another one returns instead of transferring: the
    /// one just installed, when the registry serves its digest and nobody changed the file.
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

    /// Transfers the artifact of `ticket` into a partial file (continuing a kept one), verifies
    /// it and installs it; an interrupted transfer's bytes are kept for a later download.
    private func transfer(_ modelId: String, ticket: DownloadTicket, from origin: DownloadOrigin, session: String?,
                          expecting: ExpectedArtifact?, into store: StorageDirectory, options: DownloadOptions,
                          progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel {
        let expectedSize = expecting?.size ?? ticket.size
        let expectedDigest = expecting?.sha256 ?? ticket.sha256
        // Only bytes of a known artifact (digest and size) can be kept and continued later.
        let keepable: (sha256: String, size: Int64)? = if let expectedDigest, let expectedSize, options.partialRetention > 0 {
            (expectedDigest, expectedSize)
        } else { nil }
        _ = store.removeAbandonedPartials(olderThan: options.partialRetention)
        let partial = try PartialFile.open(modelId, in: store, keepable: keepable, version: ticket.version)
        defer { partial.release() }
        let location = try storageLocation(modelId, ticket, from: origin, session: session, expecting: expecting, options: options)
        let transfer = ArtifactTransfer(modelId: modelId, sink: OffsetSink(fd: partial.fd, path: partial.path),
                                        expectedSize: expectedSize, expectedDigest: expectedDigest, location: location,
                                        transport: transport, options: options, progress: progress,
                                        checkpoint: { partial.checkpoint($0) })
        let outcome: ArtifactTransfer.Outcome
        do {
            outcome = try await transfer.run(keeping: partial.kept)
            try Task.checkCancellation()
        } catch {
            if keepable != nil && Self.keepsPartial(after: error) { partial.keep(transfer.written, outOfOrder: transfer.ranOutOfOrder) }
            throw error
        }
        let identity = FileIdentity.of(fd: partial.fd) // mtime and inode survive the flush and the rename
        try partial.install()
        var model = DownloadedModel(modelId: modelId, localURL: store.modelURL(modelId), sha256: outcome.sha256, size: outcome.size,
                                    version: await location.ticket.version, verified: expectedDigest != nil)
        model.fileIdentity = identity
        model.resumedFrom = outcome.resumedFrom
        return model
    }

    /// Where the transfer fetches from: the signed URL (re-resolved when it expires) or the mirror's URL.
    private func storageLocation(_ modelId: String, _ ticket: DownloadTicket, from origin: DownloadOrigin, session: String?,
                                 expecting: ExpectedArtifact?, options: DownloadOptions) throws -> StorageLocation {
        switch origin {
        case .registry:
            let expected = expecting ?? ExpectedArtifact(sha256: ticket.sha256, size: ticket.size, version: ticket.version)
            return try StorageLocation(ticket: ticket, allowsPlainHTTP: false, maxRefreshes: options.maxURLRefreshes) { [self] in
                try await resolveDownload(modelId, session: session, expecting: expected)
            }
        case .mirror(_, let allowPlainHTTP):
            return try StorageLocation(ticket: ticket, allowsPlainHTTP: allowPlainHTTP, maxRefreshes: 0, refresh: nil)
        }
    }

    /// Opens the storage directory, falling back to a temporary directory when the default
    /// location cannot be created (guide §6).
    func openStorage() throws -> StorageDirectory {
        do {
            return try StorageDirectory(url: storageDirectory)
        } catch let error as APIError {
            guard storageDirectory == Self.defaultStorageDirectory else { throw error }
            let fallback = FileManager.default.temporaryDirectory.appendingPathComponent("ManashikiModels", isDirectory: true)
            return try StorageDirectory(url: fallback)
        }
    }

    /// `GET /api/download/{id}`, validated.
    func resolveDownload(_ modelId: String, session: String?, expecting: ExpectedArtifact?) async throws -> DownloadTicket {
        let response = try await performAPI(path: ["api", "download", modelId], bearer: session, modelId: modelId)
        let ticket = try decode(DownloadTicket.self, from: response, what: "GET /api/download/\(modelId)")
        if let sha = ticket.sha256, !Hex.isSHA256(sha) {
            throw APIError.invalidResponse("GET /api/download/\(modelId): sha256 is not 64 lowercase hex characters")
        }
        if let version = ticket.version, !Self.isUsableVersion(version) {
            throw APIError.invalidResponse("GET /api/download/\(modelId): the version is empty, over 128 characters, or contains control characters")
        }
        if let size = ticket.size, let problem = ModelEntry.sizeProblem(size) {
            throw APIError.invalidResponse("GET /api/download/\(modelId): the ticket \(problem)")
        }
        if let expecting {
            if let v = expecting.version, let served = ticket.version, v != served {
                throw APIError.registryDisagrees("the registry serves version \(served) of \(modelId) for download but listed \(v); it is being updated, try again shortly")
            }
            if let s = expecting.sha256, let served = ticket.sha256, s != served {
                throw APIError.registryDisagrees("the registry serves a different artifact of \(modelId) (sha256 \(served.prefix(12))…) than expected (\(s.prefix(12))…); it is being updated, try again shortly")
            }
            if let s = expecting.size, let served = ticket.size, s != served {
                throw APIError.registryDisagrees("the registry serves \(served) bytes of \(modelId) but listed \(s); it is being updated, try again shortly")
            }
        }
        return ticket
    }

    /// Parses and checks a signed URL against the policy before connecting.
    static func checkedStorageURL(_ string: String, allowingPlainHTTP: Bool = false) throws -> URL {
        guard let url = URL(string: string), url.scheme != nil else {
            throw APIError.refusedURL("the download URL is not an absolute URL")
        }
        if let reason = URLPolicy.refusal(for: url, allowingPlainHTTP: allowingPlainHTTP) {
            throw APIError.refusedURL("the download URL is not allowed (\(reason))")
        }
        return url
    }

    /// Streams one request, stopped when `deadline` (uptime nanoseconds) passes whatever the
    /// transfer is doing (a stalled connection included): the transfer task is cancelled and
    /// `StorageSignal.deadlinePassed` thrown.
    static func stream(_ request: HTTPRequest, to writer: any HTTPBodyConsumer, over transport: any HTTPTransport,
                       until deadline: UInt64?) async throws {
        guard let deadline else { return try await transport.stream(request, to: writer) }
        try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await transport.stream(request, to: writer)
                return true
            }
            group.addTask {
                let now = DispatchTime.now().uptimeNanoseconds
                if now < deadline { try await Task.sleep(nanoseconds: deadline - now) }
                return false
            }
            defer { group.cancelAll() }
            guard let finished = try await group.next(), finished else { throw StorageSignal.deadlinePassed }
        }
    }

    package static func deadlineError(_ modelId: String, _ options: DownloadOptions) -> APIError {
        .transport("the download of \(modelId) did not finish within the \(String(format: "%g", options.deadline ?? 0)) s allowed (the connection is too slow); try again on a faster connection, or allow more time")
    }

    /// The longest `Retry-After` from the storage host that a download waits out itself;
    /// a longer one is handed to the caller as `APIError.rateLimited`.
    static let maxStorageRetryAfter: Double = 30

    /// Bytes an attempt must add for the resumption after it not to count against
    /// `DownloadOptions.maxResumes`.
    static let meaningfulProgress: Int64 = 1 << 20

    /// Whether the bytes written before `error` are worth keeping for a later download: yes
    /// for interruptions (cancellation, network, server, deadline), no when the bytes
    /// themselves are wrong or the disk is the problem.
    static func keepsPartial(after error: any Error) -> Bool {
        guard let error = error as? APIError else { return error is CancellationError }
        switch error {
        case .integrityMismatch, .bodyTooLong, .fileSystem: return false
        default: return true
        }
    }

    static func isResumable(_ error: APIError) -> Bool {
        switch error {
        case .transport, .bodyTooShort: return true
        case .server(let status, _): return status >= 500
        default: return false
        }
    }
}

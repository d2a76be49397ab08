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
    /// second waits (cancellably; cancelling it does not disturb the first). Each call resolves
    /// its own ticket first (its key and session are checked); when the first succeeds and the
    /// registry serves the second the digest just installed, with the file unchanged, it returns that
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
        try await downloadFromRegistry(modelId, session: session, expecting: expecting, options: options, progress: progress)
    }

    /// A registry download: the signed URL of `GET /api/download/{id}` (refreshed with another
    /// such request when it expires) and the digest, size and version it serves (a caller's
    /// expectation wins), then the verified transfer of `ArtifactDownloader`.
    func downloadFromRegistry(_ modelId: String, session: String?, expecting: ExpectedArtifact?, options: DownloadOptions,
                  progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel {
        try ModelID.validate(modelId)
        if let session, session.isEmpty || session.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F }) {
            throw APIError.invalidSession // would corrupt the header; never sent
        }
        let store = try openStorage()
        let ticket = try await resolveDownload(modelId, session: session, expecting: expecting)
        let expected = ExpectedArtifact(sha256: expecting?.sha256 ?? ticket.sha256, size: expecting?.size ?? ticket.size,
                                        version: ticket.version ?? expecting?.version)
        // Trust decides on the digest and size the transfer will enforce, before a byte is fetched.
        let candidate = try trustCandidate(modelId, expected, store: store, trust: options.trust)
        var evidence: [TrustEvidence] = []
        if let candidate { evidence = try await options.trust.evaluate(candidate) }
        let location = ArtifactLocation(url: try ArtifactDownloader.checkedStorageURL(ticket.downloadUrl), refresh: { [self] _ in
            try ArtifactDownloader.checkedStorageURL(try await resolveDownload(modelId, session: session, expecting: expected).downloadUrl)
        })
        var model = try await ArtifactDownloader(transport: transport).download(modelId, from: location, expecting: expected, into: store,
                                                                                options: options, progress: progress)
        if let candidate {
            // Installed and verified: a record that cannot be updated is a warning, never an
            // error that would say nothing was installed.
            do { try await options.trust.didInstall(candidate, evidence: evidence) } catch {
                model.warnings.append("\(modelId) \(candidate.version) is installed, but its trust record (the high-water mark) could not be updated: \(error.localizedDescription)")
            }
            model.trust = evidence
        }
        return model
    }

    /// The candidate `trust` judges (nil: no trust configured): the registry's (or the
    /// caller's) digest, size and version.
    /// - Throws: a `TrustRefusal` when the digest, size or version is unknown (nothing would
    ///   bind the bytes to what a trust accepted).
    private func trustCandidate(_ modelId: String, _ expected: ExpectedArtifact, store: StorageDirectory,
                                trust: ArtifactTrustChain) throws(TrustRefusal) -> ArtifactCandidate? {
        guard !trust.isEmpty else { return nil }
        guard let sha256 = expected.sha256, let size = expected.size, let version = expected.version else {
            throw TrustRefusal(mechanism: "trust", modelId: modelId, version: expected.version ?? "?",
                               reason: .metadata("the registry gave no SHA-256, size or version for it, so no trust can vouch for the bytes; use a registry that serves them (every Manashiki registry does)"))
        }
        let installed = FileManager.default.fileExists(atPath: store.modelURL(modelId).path)
        return ArtifactCandidate(modelId: modelId, version: version, sha256: sha256, size: size, source: "registry",
                                 purpose: installed ? .replace : .install)
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
}

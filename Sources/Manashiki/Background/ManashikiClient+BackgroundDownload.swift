import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension ManashikiClient {
    /// Resolves a model's signed download URL (`GET /api/download/{id}`, with `session` as
    /// `Authorization: Bearer` there only) and returns the request to hand to a background
    /// `URLSession`, with the ticket that verifies the file when the system hands it over.
    ///
    /// The request carries no API key and no session token (the storage host gets neither).
    /// Signed URLs expire (`expiresIn`, kept as the ticket's `urlExpiresAt`): a transfer the
    /// system starts too late gets a 403, which `installDownloadedFile` rejects; ask for a new
    /// request then (`BackgroundModelDownloads` does it by itself).
    /// - Throws: `APIError` as `downloadModel` does before any byte moves, and
    ///   `APIError.invalidResponse` when the registry gives no digest (a file fetched in the
    ///   background could not be verified).
    public func backgroundDownloadRequest(_ modelId: String, session: String? = nil,
                                          expecting: ExpectedArtifact? = nil) async throws -> (request: URLRequest, ticket: BackgroundDownloadTicket) {
        try ModelID.validate(modelId)
        let ticket = try await resolveDownload(modelId, session: session, expecting: expecting)
        guard let sha256 = expecting?.sha256 ?? ticket.sha256 else {
            throw APIError.invalidResponse("the registry gave no SHA-256 for \(modelId): a file downloaded in the background could not be verified, so it is not fetched that way; use downloadModel(_:) in the foreground")
        }
        let url = try ArtifactDownloader.checkedStorageURL(ticket.downloadUrl)
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData)
        request.setValue(Self.userAgent, forHTTPHeaderField: "User-Agent")
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        request.httpShouldHandleCookies = false
        let expiresAt = ticket.expiresIn.map { Date().addingTimeInterval(TimeInterval(max(0, $0))) }
        return (request, BackgroundDownloadTicket(modelId: modelId, sha256: sha256, size: expecting?.size ?? ticket.size,
                                                  version: expecting?.version ?? ticket.version, urlExpiresAt: expiresAt))
    }

    /// Installs a file the system downloaded for `ticket` through the same verify-and-install
    /// path as every download (`StorageDirectory.installCopy`): copied into a locked partial
    /// file and hashed in the same pass, compared with the ticket's digest and size, flushed,
    /// renamed over `<modelId>.bin`, and the directory flushed. A file that does not verify is
    /// never installed, and the installed file stays byte-for-byte intact.
    ///
    /// Call it from `urlSession(_:downloadTask:didFinishDownloadingTo:)` before returning (the
    /// system deletes `location` afterwards).
    /// - Parameters:
    ///   - status: the HTTP status of the system's task (`(task.response as? HTTPURLResponse)?.statusCode`);
    ///     anything but 200 means the file is an error page, not the model.
    /// - Throws: `APIError.integrityMismatch`, `.bodyTooShort`, `.bodyTooLong`, `.fileSystem`;
    ///   `.downloadURLExpired` for a 403/410 (the signed URL expired: request the download again),
    ///   `.rateLimited` for a 429, `.server` for a 5xx, `.unexpectedStatus` for any other non-200.
    public func installDownloadedFile(at location: URL, status: Int?, for ticket: BackgroundDownloadTicket) throws -> DownloadedModel {
        try ModelID.validate(ticket.modelId)
        switch status {
        case 200?: break
        case let expired? where expired == 403 || expired == 410:
            throw APIError.downloadURLExpired(modelId: ticket.modelId, status: expired)
        case 429?:
            throw APIError.rateLimited(retryAfter: nil)
        case let failed? where (500..<600).contains(failed):
            throw APIError.server(status: failed, message: "the storage host, for the background download of \(ticket.modelId)")
        default:
            throw APIError.unexpectedStatus(status: status ?? 0, message: "the storage host did not send \(ticket.modelId) (the background download got no 200 answer); request it again")
        }
        let size: Int64
        if let expected = ticket.size {
            size = expected
        } else {
            let attributes = try? FileManager.default.attributesOfItem(atPath: location.path)
            size = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
        }
        let store = try openStorage()
        var model = try store.installCopy(of: location.path, as: ticket.modelId, sha256: ticket.sha256, size: size, version: ticket.version)
        model.verified = true
        return model
    }
}

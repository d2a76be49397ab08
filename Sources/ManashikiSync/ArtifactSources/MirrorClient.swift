import Foundation
import Manashiki

/// Fetches from a mirror (and from an OCI registry's blob endpoint, over its authenticating
/// transport): blobs through the SDK's verified transfer (`ArtifactDownloader`), small documents
/// (`index.json`) with a plain GET. No `ManashikiClient` and no API key: a mirror gets no
/// `X-API-Key` and no `Authorization`. Mirror transfers are kept short: a mirror that is down,
/// slow to answer or missing the blob falls through to the next source quickly.
package struct MirrorClient: Sendable {
    /// Carries the requests (the run's TLS trust and proxies).
    let transport: any HTTPTransport
    /// The store blobs are installed into.
    let store: URL
    /// How long and how slowly a mirror may send a document (`index.json`; `policies.documents`).
    let documentLimits: DocumentLimits

    /// A client over `transport` installing into `store`.
    package init(transport: any HTTPTransport, store: URL, documentLimits: DocumentLimits = .default) {
        self.transport = transport
        self.store = store
        self.documentLimits = documentLimits
    }

    /// The transfer settings for mirrors: a stall (`Reconciler.Options.mirrorIdleTimeout`,
    /// default 15 s) or more than one resumption moves on to the next source (the registry is
    /// still there); a 403 or 410 is final (there is nothing to refresh).
    static var mirrorOptions: DownloadOptions {
        var options = DownloadOptions()
        options.idleTimeout = 15
        options.maxResumes = 1
        options.maxURLRefreshes = 0
        options.resumeBackoff = 0.1
        return options
    }

    /// `mirrorOptions` within the run's deadline, bandwidth limit (one limit for the whole run,
    /// mirrors included), connection settings and connection budget.
    static func options(_ run: DownloadOptions, idleTimeout: TimeInterval) -> DownloadOptions {
        var options = Self.mirrorOptions
        options.idleTimeout = idleTimeout
        options.deadline = run.deadline
        options.rateLimiter = run.rateLimiter
        options.maxConnections = run.maxConnections
        options.parallelThreshold = run.parallelThreshold
        options.connectionBudget = run.connectionBudget
        return options
    }

    /// Downloads `url` as `<store>/<modelId>.bin`, verified against `expecting` (digest and
    /// size required), within the run's deadline, bandwidth limit and connection budget.
    /// - Throws: `APIError.invalidResponse` when `expecting` lacks a digest or size; the
    ///   transfer's errors (`ArtifactDownloader.download`).
    func download(_ modelId: String, url: URL, allowPlainHTTP: Bool, expecting: ExpectedArtifact, run: DownloadOptions,
                  idleTimeout: TimeInterval, progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel {
        guard expecting.sha256 != nil, expecting.size != nil else {
            throw APIError.invalidResponse("a mirror download needs the expected digest and size")
        }
        let options = Self.options(run, idleTimeout: idleTimeout)
        let location = ArtifactLocation(url: url, allowsPlainHTTP: allowPlainHTTP, maxRefreshes: 0)
        return try await ArtifactDownloader(transport: transport).download(modelId, from: location, expecting: expecting,
                                                                           into: try StorageDirectory(url: store),
                                                                           options: options, progress: progress)
    }

    /// Reads a small document from a mirror (its `index.json`, a signature): a plain GET with
    /// no `X-API-Key` and no `Authorization` (`HTTPTransport.fetchDocument`), within `documentLimits`.
    func fetchDocument(_ url: URL, allowPlainHTTP: Bool, idleTimeout: TimeInterval, maxBytes: Int) async throws -> (status: Int, body: Data) {
        try await transport.fetchDocument(url, allowPlainHTTP: allowPlainHTTP, idleTimeout: idleTimeout, maxBytes: maxBytes,
                                          documentLimits: documentLimits)
    }
}

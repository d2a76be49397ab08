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

    /// Downloads `url` as `<store>/<modelId>.bin`, verified against `expecting` (digest and
    /// size required), within the run's deadline, bandwidth limit and connection budget.
    /// - Throws: `APIError.invalidResponse` when `expecting` lacks a digest or size; the
    ///   transfer's errors (`ArtifactDownloader.download`).
    func download(_ modelId: String, url: URL, allowPlainHTTP: Bool, expecting: ExpectedArtifact, run: DownloadOptions,
                  idleTimeout: TimeInterval, progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel {
        guard expecting.sha256 != nil, expecting.size != nil else {
            throw APIError.invalidResponse("a mirror download needs the expected digest and size")
        }
        var options = Self.mirrorOptions
        options.idleTimeout = idleTimeout
        options.deadline = run.deadline
        options.rateLimiter = run.rateLimiter // one limit for the whole run, mirrors included
        options.maxConnections = run.maxConnections
        options.parallelThreshold = run.parallelThreshold
        options.connectionBudget = run.connectionBudget // one connection budget too
        let location = ArtifactLocation(url: url, allowsPlainHTTP: allowPlainHTTP, maxRefreshes: 0)
        return try await ArtifactDownloader(transport: transport).download(modelId, from: location, expecting: expecting,
                                                                           into: try StorageDirectory(url: store),
                                                                           options: options, progress: progress)
    }

    /// Reads a small document from a mirror (its `index.json`): a plain GET with no
    /// `X-API-Key` and no `Authorization`, following at most `RedirectPolicy.mirrorDocumentHops`
    /// redirects the URL policy allows, buffering at most `maxBytes`, each answer within
    /// `documentLimits`.
    /// - Returns: the final status and body (any status: the caller decides).
    /// - Throws: `APIError` when the mirror cannot be reached (connection, TLS, proxy, a stall
    ///   of `idleTimeout` seconds, a refused URL, a body over `maxBytes`).
    func fetchDocument(_ url: URL, allowPlainHTTP: Bool, idleTimeout: TimeInterval, maxBytes: Int) async throws -> (status: Int, body: Data) {
        if let reason = URLPolicy.refusal(for: url, allowingPlainHTTP: allowPlainHTTP) { throw APIError.refusedURL(reason) }
        let redirects = RedirectPolicy.mirrorDocument(allowingPlainHTTP: allowPlainHTTP)
        var url = url
        var hops = 0
        while true {
            // No X-API-Key and no Authorization: a mirror gets no credentials.
            let request = HTTPRequest(url: url, headers: ["User-Agent": ManashikiClient.userAgent, "Accept": "application/json", "Accept-Encoding": "identity"],
                                      idleTimeout: idleTimeout, maxBufferedBodyBytes: maxBytes, documentLimits: documentLimits)
            let response = try await transport.send(request)
            let location = response.head.headers["Location"]
            // A redirect without a usable Location is an answer like any other: the caller
            // reports its status.
            guard RedirectPolicy.isRedirect(response.head.status), RedirectPolicy.target(location, from: url) != nil else {
                return (response.head.status, response.body)
            }
            hops += 1
            url = try redirects.next(status: response.head.status, location: location, from: url, hop: hops)
        }
    }
}

import Foundation
import Manashiki

/// A registry client that can also fetch a blob from a mirror through the SDK's verified
/// streaming path (`ManashikiClient` conforms). Mirror transfers are kept short: a mirror that
/// is down, slow to answer or missing the blob falls through to the next source quickly.
package protocol MirrorDownloading: Sendable {
    /// Downloads `url` as `<store>/<modelId>.bin`, verified against `expecting`, within the
    /// run's deadline and bandwidth limit (`run.deadline`, `run.rateLimiter`).
    func downloadFromMirror(_ modelId: String, url: URL, allowPlainHTTP: Bool, expecting: ExpectedArtifact, run: DownloadOptions,
                            idleTimeout: TimeInterval, progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel

    /// Reads a small document from a mirror (its `index.json`): a plain GET with no
    /// `X-API-Key` and no `Authorization`, following at most `RedirectPolicy.mirrorDocumentHops` redirects the URL policy allows,
    /// buffering at most `maxBytes`, each answer within the client's `documentLimits`.
    /// - Returns: the final status and body (any status: the caller decides).
    /// - Throws: `APIError` when the mirror cannot be reached (connection, TLS, proxy, a stall
    ///   of `idleTimeout` seconds, a refused URL, a body over `maxBytes`).
    func fetchFromMirror(_ url: URL, allowPlainHTTP: Bool, idleTimeout: TimeInterval, maxBytes: Int) async throws -> (status: Int, body: Data)
}

extension ManashikiClient: MirrorDownloading {
    /// The transfer settings for mirrors: a stall (`Reconciler.Options.mirrorIdleTimeout`,
    /// default 15 s) or more than one resumption moves on to the next source (the registry is
    /// still there).
    static var mirrorOptions: DownloadOptions {
        var options = DownloadOptions()
        options.idleTimeout = 15
        options.maxResumes = 1
        options.maxURLRefreshes = 0
        options.resumeBackoff = 0.1
        return options
    }

    package func downloadFromMirror(_ modelId: String, url: URL, allowPlainHTTP: Bool, expecting: ExpectedArtifact, run: DownloadOptions,
                                    idleTimeout: TimeInterval, progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel {
        var options = Self.mirrorOptions
        options.idleTimeout = idleTimeout
        options.deadline = run.deadline
        options.rateLimiter = run.rateLimiter // one limit for the whole run, mirrors included
        options.maxConnections = run.maxConnections
        options.parallelThreshold = run.parallelThreshold
        options.connectionBudget = run.connectionBudget // one connection budget too
        return try await downloadModel(modelId, fromMirror: url, allowPlainHTTP: allowPlainHTTP, expecting: expecting, options: options, progress: progress)
    }

    package func fetchFromMirror(_ url: URL, allowPlainHTTP: Bool, idleTimeout: TimeInterval, maxBytes: Int) async throws -> (status: Int, body: Data) {
        if let reason = URLPolicy.refusal(for: url, allowingPlainHTTP: allowPlainHTTP) { throw APIError.refusedURL(reason) }
        let redirects = RedirectPolicy.mirrorDocument(allowingPlainHTTP: allowPlainHTTP)
        var url = url
        var hops = 0
        while true {
            // No X-API-Key and no Authorization: a mirror gets no credentials.
            let request = HTTPRequest(url: url, headers: ["User-Agent": Self.userAgent, "Accept": "application/json", "Accept-Encoding": "identity"],
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

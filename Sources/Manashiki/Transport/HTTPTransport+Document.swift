import Foundation

extension HTTPTransport {
    /// Reads a small document from a host other than the registry (a mirror's `index.json`, a
    /// publisher's `model.sig`): a plain GET with no `X-API-Key` and no `Authorization`,
    /// following at most `RedirectPolicy.mirrorDocumentHops` redirects the URL policy allows,
    /// buffering at most `maxBytes`, each answer within `documentLimits` (`streamDocument(_:to:)`).
    /// - Returns: the final status and body (any status: the caller decides).
    /// - Throws: `APIError` when the host cannot be reached (connection, TLS, proxy, a stall
    ///   of `idleTimeout` seconds, a refused URL, a body over `maxBytes`, a document limit crossed).
    package func fetchDocument(_ url: URL, allowPlainHTTP: Bool, idleTimeout: TimeInterval, maxBytes: Int,
                               documentLimits: DocumentLimits = .default) async throws -> (status: Int, body: Data) {
        if let reason = URLPolicy.refusal(for: url, allowingPlainHTTP: allowPlainHTTP) { throw APIError.refusedURL(reason) }
        let redirects = RedirectPolicy.mirrorDocument(allowingPlainHTTP: allowPlainHTTP)
        var url = url
        var hops = 0
        while true {
            // No X-API-Key and no Authorization: another host gets no credentials.
            let request = HTTPRequest(url: url, headers: ["User-Agent": ManashikiClient.userAgent, "Accept": "application/json", "Accept-Encoding": "identity"],
                                      idleTimeout: idleTimeout, maxBufferedBodyBytes: maxBytes, documentLimits: documentLimits)
            let response = try await send(request)
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

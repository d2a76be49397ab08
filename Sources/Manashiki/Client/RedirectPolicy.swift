import Foundation

/// The one way the SDK follows redirects, for API requests, storage downloads and mirror
/// documents: which answers redirect, how many hops are followed, and where a hop may go.
/// Each caller configures it (`api(baseURL:)`, `storage(maxHops:allowingPlainHTTP:)`,
/// `mirrorDocument(allowingPlainHTTP:)`) and asks `next(status:location:from:hop:)` for
/// every answer; it never sends anything itself.
///
/// ```swift
/// let policy = RedirectPolicy.storage(maxHops: options.maxRedirects, allowingPlainHTTP: false)
/// var hops = 0
/// while true {
///     let response = try await transport.send(HTTPRequest(url: url))
///     guard RedirectPolicy.isRedirect(response.status) else { return response }
///     hops += 1
///     url = try policy.next(status: response.status, location: response.head.headers["Location"], from: url, hop: hops)
/// }
/// ```
package struct RedirectPolicy: Sendable, Hashable {
    /// Where a hop may lead.
    package enum Scope: Sendable, Hashable {
        /// Only to the origin (scheme, host, port) of the URL redirected from: the API key
        /// never leaves the registry's origin.
        case sameOrigin(keyOrigin: URL)
        /// Anywhere `URLPolicy` allows (https, or http to this machine; any http with
        /// `allowingPlainHTTP`).
        case allowedURLs(allowingPlainHTTP: Bool)
    }

    /// Who redirects, as errors name it ("the registry", "the storage host", "the mirror").
    package var peer: String
    /// The most hops followed.
    package var maxHops: Int
    /// Where a hop may lead.
    package var scope: Scope

    /// A policy.
    package init(peer: String, maxHops: Int, scope: Scope) {
        self.peer = peer
        self.maxHops = maxHops
        self.scope = scope
    }

    /// API requests: at most `ManashikiClient.maxRedirects` hops, within the registry's origin.
    package static func api(baseURL: URL) -> RedirectPolicy {
        RedirectPolicy(peer: "the registry", maxHops: ManashikiClient.maxRedirects, scope: .sameOrigin(keyOrigin: baseURL))
    }

    /// A storage host's signed URL: `maxHops` (`DownloadOptions.maxRedirects`), to allowed URLs.
    package static func storage(maxHops: Int, allowingPlainHTTP: Bool) -> RedirectPolicy {
        RedirectPolicy(peer: "the storage host", maxHops: maxHops, scope: .allowedURLs(allowingPlainHTTP: allowingPlainHTTP))
    }

    /// The most hops a mirror's small documents (its `index.json`) are followed: a mirror that
    /// needs more is misconfigured, and the next source is quicker than a long chain.
    package static let mirrorDocumentHops = 3

    /// A mirror's small documents: `mirrorDocumentHops`, to allowed URLs.
    package static func mirrorDocument(allowingPlainHTTP: Bool) -> RedirectPolicy {
        RedirectPolicy(peer: "the mirror", maxHops: mirrorDocumentHops, scope: .allowedURLs(allowingPlainHTTP: allowingPlainHTTP))
    }

    /// The statuses that redirect: 301, 302, 303, 307, 308 (not 304, which is a cache answer,
    /// nor 300 and 305, which name no single target).
    package static func isRedirect(_ status: Int) -> Bool { [301, 302, 303, 307, 308].contains(status) }

    /// The absolute URL of `location` (a `Location` header, absolute or relative) against the
    /// URL that was redirected from; nil when there is none or it does not parse.
    package static func target(_ location: String?, from url: URL) -> URL? {
        guard let location, !location.isEmpty else { return nil }
        return URL(string: location, relativeTo: url)?.absoluteURL
    }

    /// The URL hop number `hop` (1-based) leads to, after a redirect `status` from `url`.
    /// - Throws: `APIError.unexpectedStatus` when there is no usable `Location`;
    ///   `APIError.refusedURL` past `maxHops`, or for a target outside the scope.
    package func next(status: Int, location: String?, from url: URL, hop: Int) throws -> URL {
        guard let next = Self.target(location, from: url) else {
            throw APIError.unexpectedStatus(status: status, message: "\(peer) redirected without a usable Location")
        }
        guard hop <= maxHops else { throw APIError.refusedURL("\(peer) redirected more than \(maxHops) times") }
        switch scope {
        case .sameOrigin(let keyOrigin):
            guard URLPolicy.sameOrigin(next, url) else {
                // Never carry the key to another origin; refuse rather than strip it, since an
                // answer from elsewhere would not be trustworthy either.
                throw APIError.refusedURL("\(peer) redirected to another origin (\(URLPolicy.origin(of: next))); the API key is only ever sent to \(URLPolicy.origin(of: keyOrigin))")
            }
        case .allowedURLs(let plainHTTP):
            if let reason = URLPolicy.refusal(for: next, allowingPlainHTTP: plainHTTP) {
                throw APIError.refusedURL("\(peer) redirected to a URL that is not allowed (\(reason))")
            }
        }
        return next
    }

    /// The method a request keeps after a redirect `status` (RFC 9110 §15.4): 303 turns
    /// anything into GET, and 301/302 turn POST into GET (as browsers do); 307/308 keep it.
    package static func method(after status: Int, was method: String) -> String {
        if status == 303 || ((status == 301 || status == 302) && method == "POST") { return "GET" }
        return method
    }
}

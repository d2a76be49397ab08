import Foundation

/// Where an artifact's bytes are fetched from, and how each request for them is made: the URL,
/// an optional hook that signs every request just before it is sent, and an optional way to get
/// a fresh URL when the storage host refuses the current one (a signed URL that expired).
///
/// The registry's path gives the signed URL of `GET /api/download` and refreshes it with
/// another such request; a mirror or an OCI registry gives a fixed URL; an object store can
/// sign each request (AWS Signature V4 over the final method, URL and headers, `Range`
/// included):
///
/// ```swift
/// let location = ArtifactLocation(url: blobURL, sign: { request in
///     var signed = request
///     signed.headers["Authorization"] = signer.authorization(for: request)   // the caller's signer
///     return signed
/// })
/// ```
package struct ArtifactLocation: Sendable {
    /// Signs (or otherwise completes) one request before it is sent; see `sign`.
    package typealias Signer = @Sendable (HTTPRequest) async throws -> HTTPRequest
    /// Resolves a fresh URL after the storage host refused the current one with `status`
    /// (403 or 410).
    package typealias Refresher = @Sendable (_ status: Int) async throws -> URL

    /// The first URL to fetch.
    package var url: URL
    /// Whether plain `http` to hosts other than this machine is allowed (a mirror or bucket the
    /// operator marked so); `https` is required otherwise (`URLPolicy`).
    package var allowsPlainHTTP: Bool
    /// Called for every request of the transfer (each part, each resumption, each redirect hop)
    /// with its final method, URL and headers (`Range` included), just before it is sent; returns
    /// the request to send. It sees the URL a redirect leads to and must sign only for the hosts
    /// its credentials belong to. Nil: requests go as they are, with no credentials.
    package var sign: Signer?
    /// Called when the storage host answers 403 or 410 (the URL expired): a fresh URL, shared by
    /// every part of the transfer. Nil: such an answer is final (`APIError.unexpectedStatus`).
    package var refresh: Refresher?
    /// The most refreshes one download asks for (nil: `DownloadOptions.maxURLRefreshes`).
    package var maxRefreshes: Int?

    /// A location.
    package init(url: URL, allowsPlainHTTP: Bool = false, sign: Signer? = nil, refresh: Refresher? = nil, maxRefreshes: Int? = nil) {
        self.url = url
        self.allowsPlainHTTP = allowsPlainHTTP
        self.sign = sign
        self.refresh = refresh
        self.maxRefreshes = maxRefreshes
    }
}

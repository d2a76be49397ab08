import Foundation

/// Every failure the SDK reports.
///
/// Server answers map to cases by CONTRACT §4; the rest are failures of the client itself.
/// Each case's `errorDescription` says what happened and what to do next, and never contains
/// the API key, a session token or a signed URL's query string.
///
/// ```swift
/// do {
///     _ = try await client.downloadModel("whisper-medical-ja-fp16")
/// } catch APIError.rateLimited(let retryAfter) {
///     try await Task.sleep(for: .seconds(retryAfter ?? 60))
/// } catch APIError.integrityMismatch(let expected, let actual) {
///     print("corrupt download: \(expected.prefix(8)) != \(actual.prefix(8))")
/// }
/// ```
public enum APIError: Error, Sendable, Equatable {
    // MARK: Client-side validation (nothing was sent)

    /// The API key matches none of the published formats (CONTRACT §1). Nothing was sent.
    case invalidAPIKey
    /// A server-only method was called with a client-tier (`mk_pub_`) key (nothing was sent), or
    /// the server refused the key's scope (`403 forbidden_scope`, e.g. an `mk_live_` key asking
    /// for a session). Exactly the case the SDK guide names; its text says what each kind of key
    /// may do, without assuming which one was used.
    case forbiddenScope
    /// The model id is not a valid id (CONTRACT §2); it was never used in a URL or a path.
    case invalidModelId(String)

    // MARK: Server answers (CONTRACT §4)

    /// `400 bad_request`: the server rejected the request; the message says why.
    case badRequest(String)
    /// `401 invalid_api_key`: the key is revoked or unknown to the server.
    case unauthorized
    /// `401 session_required`: the model is private; pass a session token.
    case sessionRequired
    /// `401 invalid_session`: the session token is expired or malformed.
    case invalidSession
    /// `404 not_found`: no model with this id is visible to the key's organisation.
    case modelNotFound(String)
    /// `410 model_sunset`: the model was retired and can no longer be downloaded.
    case modelSunset(String)
    /// `429 rate_limited`: retry after the given number of seconds (nil when the server gave none).
    case rateLimited(retryAfter: Int?)
    /// A 5xx answer (from the API or a proxy in between).
    case server(status: Int, message: String?)
    /// Any other non-2xx answer that the contract does not name.
    case unexpectedStatus(status: Int, message: String?)

    // MARK: Downloads

    /// The downloaded bytes' SHA-256 differs from the registry's digest; nothing was installed.
    case integrityMismatch(expected: String, actual: String)
    /// The storage host sent more bytes than the registry declared; the transfer was stopped
    /// at the first excess byte and nothing was installed.
    case bodyTooLong(expected: Int64)
    /// The transfer ended before the declared size was reached.
    case bodyTooShort(expected: Int64, received: Int64)
    /// A download or redirect URL was refused before connecting (a scheme other than `https`,
    /// `http` to a non-loopback host, credentials in the URL, too many redirects, or a redirect
    /// away from the API origin). The reason never contains the URL's query string.
    case refusedURL(String)
    /// The storage host refused a signed download URL that expired before the transfer reached
    /// it (403 or 410): a background transfer the system started late. Nothing was installed;
    /// requesting the download again issues a new URL (retryable).
    case downloadURLExpired(modelId: String, status: Int)

    // MARK: Transport and local failures

    /// The response could not be decoded; `detail` says which part.
    case invalidResponse(String)
    /// The download ticket disagrees with the catalog entry the call expected (its version,
    /// digest or size): the registry is being updated, not a proxy in the way. `detail` says
    /// which value differs. Nothing was downloaded; the same call shortly after can succeed.
    case registryDisagrees(String)
    /// The network failed (connection refused or reset, DNS, a TLS handshake, a stalled transfer).
    case transport(String)
    /// The server's TLS certificate did not verify against the trusted CAs (`reason` is the TLS
    /// library's, e.g. "unable to get local issuer certificate"). Not retryable: someone must
    /// add the CA (`TLSTrust`, the manifest's `registry.caBundle`, `SSL_CERT_FILE`) or fix the server.
    case untrustedCertificate(host: String, reason: String)
    /// The server's TLS certificate (or one of its chain) has expired or is not yet valid
    /// (`reason` is the TLS library's): this machine's clock is wrong, or the server's operator
    /// must renew it. Not retryable. (Told apart by the TLS library's verify result, on Linux
    /// with libcurl's OpenSSL backend; elsewhere such a certificate may be `untrustedCertificate`.)
    case certificateDateInvalid(host: String, reason: String)
    /// The server's certificate is valid, but for other names (`validFor`, e.g.
    /// "DNS:other.example"; empty when unknown). Not retryable.
    case certificateNameMismatch(host: String, validFor: String)
    /// The CA certificates the configuration names cannot be used (a variable such as
    /// `SSL_CERT_FILE` naming a missing file); `detail` names the setting and the path.
    case caCertificatesUnusable(String)
    /// A file-system operation failed. `code` is the POSIX `errno` (for example `ENOSPC`).
    case fileSystem(operation: String, path: String, code: Int32)
    /// The proxy chosen from the environment (Linux: `https_proxy`, `HTTP_PROXY`…) is down,
    /// refused the request, wants credentials, or is set to something that is not a proxy URL.
    /// Names the proxy's `host:port` and the variable, never its credentials.
    case proxy(ProxyFailure)
}

extension APIError {
    /// Whether trying the same call again later can succeed without anyone changing anything:
    /// rate limits, 5xx answers, network failures (an unreachable proxy included) and truncated
    /// transfers.
    public var isRetryable: Bool {
        switch self {
        case .rateLimited, .server, .transport, .bodyTooShort, .downloadURLExpired: return true
        case .fileSystem(_, _, let code): return code == EINTR || code == EAGAIN
        case .proxy(let failure): return failure.isRetryable
        default: return false
        }
    }

    /// The HTTP status the server answered with, for errors that came from an answer.
    public var httpStatus: Int? {
        switch self {
        case .badRequest: return 400
        case .unauthorized, .sessionRequired, .invalidSession: return 401
        case .modelNotFound: return 404
        case .modelSunset: return 410
        case .rateLimited: return 429
        case .server(let status, _), .unexpectedStatus(let status, _), .downloadURLExpired(_, let status): return status
        default: return nil
        }
    }
}

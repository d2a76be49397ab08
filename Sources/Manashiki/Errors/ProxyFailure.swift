import Foundation

/// Why a proxy chosen from the environment (`https_proxy`, `HTTP_PROXY`…, see the README's
/// "Proxies") could not carry a request: the payload of `APIError.proxy`.
///
/// It names the proxy by `host:port` and the variable that chose it; never its user name or
/// password.
///
/// ```swift
/// do {
///     _ = try await client.listModels()
/// } catch APIError.proxy(let failure) where failure.problem == .authenticationRequired(credentialsGiven: false) {
///     print("set https_proxy=http://user:password@\(failure.proxy)")
/// }
/// ```
public struct ProxyFailure: Sendable, Hashable {
    /// What went wrong.
    public enum Problem: Sendable, Hashable {
        /// The proxy could not be reached: `detail` says how ("connection refused", "its name
        /// could not be resolved", "it did not answer in time"). Retryable.
        case unreachable(String)
        /// The proxy answered 407 Proxy Authentication Required: it wants credentials, or
        /// rejected the ones in the proxy URL. Terminal.
        case authenticationRequired(credentialsGiven: Bool)
        /// The proxy refused to connect to the host (a 4xx answer to `CONNECT`, typically 403:
        /// its policy forbids the host or port). Terminal.
        case refused(status: Int)
        /// The proxy could not reach the host itself (a 5xx answer to `CONNECT`). Retryable.
        case upstreamFailed(status: Int)
        /// The variable does not hold a usable proxy URL; `reason` says why. Terminal.
        case invalidSetting(String)
    }

    /// The proxy's `host:port`.
    public var proxy: String
    /// The environment variable that chose it (`https_proxy`, `HTTP_PROXY`, `ALL_PROXY`…).
    public var variable: String
    /// The host the request was for.
    public var host: String
    /// What went wrong.
    public var problem: Problem

    /// Creates a failure.
    public init(proxy: String, variable: String, host: String, problem: Problem) {
        self.proxy = proxy
        self.variable = variable
        self.host = host
        self.problem = problem
    }

    /// Whether trying again later, unchanged, can succeed: yes for an unreachable proxy and
    /// for a proxy that could not reach the host; no when the proxy wants credentials, forbids
    /// the host, or the variable is malformed.
    public var isRetryable: Bool {
        switch problem {
        case .unreachable, .upstreamFailed: return true
        case .authenticationRequired, .refused, .invalidSetting: return false
        }
    }
}

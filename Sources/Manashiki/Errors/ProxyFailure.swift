import Foundation

/// Why a proxy chosen from the environment (`https_proxy`, `HTTP_PROXY`, `ALL_PROXY`…, see
/// docs/networking.md, "Proxies") could not carry a request: the payload of `APIError.proxy`.
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
        /// could not be resolved", "it did not answer in time", "the SOCKS handshake failed").
        /// Retryable.
        case unreachable(String)
        /// The proxy wants credentials, or rejected the ones in the proxy URL: an HTTP proxy's
        /// 407 Proxy Authentication Required, or a SOCKS5 proxy that accepted none of the
        /// offered authentication methods or rejected the user name and password. Terminal.
        case authenticationRequired(credentialsGiven: Bool)
        /// An HTTP proxy answered 401 Unauthorized itself (some corporate proxies do, instead of
        /// 407): a 401 with `Proxy-Authenticate`, or whose body is not the registry's error JSON
        /// (CONTRACT §4), received through an HTTP or HTTPS proxy. The proxy wants credentials;
        /// the API key is not the problem. Terminal.
        case unauthorized(credentialsGiven: Bool)
        /// The proxy refused to connect to the host (a 4xx answer to `CONNECT`, typically 403:
        /// its policy forbids the host or port). Terminal.
        case refused(status: Int)
        /// The proxy could not reach the host itself (a 5xx answer to `CONNECT`). Retryable.
        case upstreamFailed(status: Int)
        /// A SOCKS proxy could not open the connection to the host; `reply` is its reply code
        /// (SOCKS5: 1 general failure, 2 not allowed by its rules, 3 network unreachable, 4 host
        /// unreachable, 5 connection refused, 6 TTL expired, 7 command or 8 address type not
        /// supported; SOCKS4: 91 rejected or failed, 92 and 93 identd). Retryable unless the
        /// proxy's rules forbid the host or it cannot do such a request (SOCKS5 2, 7, 8; SOCKS4 92, 93).
        case socksConnectFailed(reply: Int)
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
    /// The proxy URL's scheme: `http`, `https`, `socks4`, `socks4a`, `socks5` or `socks5h`.
    public var scheme: String

    /// Creates a failure.
    public init(proxy: String, variable: String, host: String, problem: Problem, scheme: String = "http") {
        self.proxy = proxy
        self.variable = variable
        self.host = host
        self.problem = problem
        self.scheme = scheme
    }

    /// Whether trying again later, unchanged, can succeed: yes for an unreachable proxy and
    /// for a proxy that could not reach the host; no when the proxy wants credentials, forbids
    /// the host, or the variable is malformed.
    public var isRetryable: Bool {
        switch problem {
        case .unreachable, .upstreamFailed: return true
        case .socksConnectFailed(let reply): return !Self.socksForbids(reply: reply, scheme: scheme)
        case .authenticationRequired, .unauthorized, .refused, .invalidSetting: return false
        }
    }

    /// Whether a SOCKS reply says the proxy will never make this connection as asked.
    static func socksForbids(reply: Int, scheme: String) -> Bool {
        scheme.hasPrefix("socks4") ? [92, 93].contains(reply) : [2, 7, 8].contains(reply)
    }

    /// `SOCKS5` for a `socks5://` or `socks5h://` proxy, `SOCKS4` for `socks4(a)://`, nil for HTTP(S).
    var socksVersion: String? {
        if scheme.hasPrefix("socks5") { return "SOCKS5" }
        if scheme.hasPrefix("socks4") { return "SOCKS4" }
        return nil
    }

    /// What a SOCKS reply code means.
    func socksReplyText(_ reply: Int) -> String {
        let texts: [Int: String] = socksVersion == "SOCKS4"
            ? [91: "request rejected or failed", 92: "it could not reach the identd of this machine", 93: "identd reported another user"]
            : [1: "general failure", 2: "connection not allowed by its rules", 3: "network unreachable", 4: "host unreachable",
               5: "connection refused", 6: "TTL expired", 7: "command not supported", 8: "address type not supported"]
        return "\(socksVersion ?? "SOCKS") reply \(reply)" + (texts[reply].map { ": \($0)" } ?? "")
    }
}

extension ProxyFailure: CustomStringConvertible {
    /// Whether `description` says the failure is usually temporary.
    package var saysUsuallyTemporary: Bool {
        switch problem {
        case .upstreamFailed: return true
        case .socksConnectFailed(let reply): return !Self.socksForbids(reply: reply, scheme: scheme)
        default: return false
        }
    }

    /// What happened and what to do, naming the proxy and its variable, never credentials
    /// (`APIError.proxy`'s `errorDescription`).
    public var description: String {
        let kind = socksVersion.map { "\($0) proxy" } ?? "proxy"
        let proxy = "the \(kind) \(self.proxy) (from \(variable))"
        let sentenceStart = "The \(kind) \(self.proxy) (from \(variable))"
        let template = "\(variable)=\(scheme)://USER:PASSWORD@\(self.proxy)"
        switch problem {
        case .unreachable(let detail):
            return "Could not connect to \(proxy): \(detail). Check the proxy is running and \(variable) names it, or add \(host) to no_proxy to connect directly."
        case .authenticationRequired(let given) where socksVersion != nil:
            return given
                ? "\(sentenceStart) rejected the user name and password in \(variable). Correct them in the proxy URL (percent-encode special characters)."
                : "\(sentenceStart) requires a user name and password (it accepted none of the authentication methods offered): put them in the proxy URL, \(template) (percent-encode special characters)."
        case .authenticationRequired(let given):
            return given
                ? "\(sentenceStart) rejected the credentials in \(variable) (HTTP 407 Proxy Authentication Required). Correct the user name and password in the proxy URL (percent-encode special characters)."
                : "\(sentenceStart) requires credentials (HTTP 407 Proxy Authentication Required): put them in the proxy URL, \(template) (percent-encode special characters)."
        case .unauthorized(let given):
            let notTheKey = "answered HTTP 401 Unauthorized for \(host) itself (not the registry's answer): the proxy wants credentials, the API key is not the problem, do not replace it."
            return given
                ? "\(sentenceStart) \(notTheKey) Correct the user name and password in \(variable) (percent-encode special characters), or add \(host) to no_proxy if it is reachable directly."
                : "\(sentenceStart) \(notTheKey) Put the proxy's credentials in the proxy URL, \(template) (percent-encode special characters), or add \(host) to no_proxy if it is reachable directly."
        case .refused(let status):
            return "\(sentenceStart) refused to connect to \(host) (HTTP \(status)). Ask the proxy's administrator to allow \(host), or add it to no_proxy if it is reachable directly."
        case .upstreamFailed(let status):
            return "\(sentenceStart) could not reach \(host) (HTTP \(status)). This is usually temporary; if it persists, check \(host) is reachable from the proxy."
        case .socksConnectFailed(let reply) where Self.socksForbids(reply: reply, scheme: scheme):
            return "\(sentenceStart) refused to connect to \(host) (\(socksReplyText(reply))). Ask the proxy's administrator to allow \(host), or add it to no_proxy if it is reachable directly."
        case .socksConnectFailed(let reply):
            return "\(sentenceStart) could not reach \(host) (\(socksReplyText(reply))). This is usually temporary; if it persists, check \(host) is reachable from the proxy."
        case .invalidSetting(let reason):
            return "\(variable) is not a usable proxy URL: \(reason). Correct it, or unset it to connect directly."
        }
    }
}

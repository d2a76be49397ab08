#if os(Linux)
import Foundation

extension CurlTransport {
    /// The route for `request` (`ProxyEnvironment`), or the error for a proxy variable that is
    /// not a usable URL (nothing is sent then).
    func proxyRoute(for request: HTTPRequest) throws -> ProxyRoute {
        let route = proxies.route(for: request.url)
        if case .invalid(let variable, let reason) = route {
            throw APIError.proxy(ProxyFailure(proxy: "", variable: variable, host: request.url.host ?? "?", problem: .invalidSetting(reason)))
        }
        return route
    }
}

extension ProxyRoute {
    /// Calls `body` with the `CURLOPT_PROXY` value for this route (the proxy's URL, or "" for
    /// a direct connection, so libcurl reads no variable of its own) and a place for the
    /// proxy's answer to CONNECT; returns `body`'s result and that answer (0 when none).
    func withCurlProxy<R>(_ body: (UnsafePointer<CChar>, UnsafeMutablePointer<Int>) -> R) -> (R, connectStatus: Int) {
        var status = 0
        let result = (server?.curlURL ?? "").withCString { proxy in
            withUnsafeMutablePointer(to: &status) { body(proxy, $0) }
        }
        return (result, status)
    }

    /// Whose certificate a TLS failure is about: through an `https://` proxy that never
    /// answered `CONNECT` (or a plain-http request, which needs none), the TLS connection that
    /// failed was the one to the proxy, so the error names the proxy, not `host`.
    func tlsPeer(host: String, connectStatus: Int) -> String {
        guard let server, server.scheme == "https", connectStatus == 0 else { return host }
        return "the proxy \(server)"
    }
}

/// Failures of a request that went through a proxy, as errors that name the proxy.
enum CurlProxyErrorText {
    /// The error for a request to `host` through `proxy` that libcurl ended with `code`;
    /// `connectStatus` is the proxy's answer to `CONNECT` (0 when none).
    static func apiError(code: Int32, message: String, host: String, proxy: ProxyServer, connectStatus: Int) -> APIError {
        func failure(_ problem: ProxyFailure.Problem) -> APIError { self.failure(problem, host: host, proxy: proxy) }
        if connectStatus >= 300 { return failure(problem(status: connectStatus, proxy: proxy)) }
        switch code {
        case 5: return failure(.unreachable("its name could not be resolved"))
        case 7: return failure(.unreachable("connection refused or unreachable"))
        case 28 where message.hasPrefix("Connection timed out") || message.hasPrefix("Failed to connect"):
            // libcurl's connect phase: with a proxy, the connection is to the proxy.
            return failure(.unreachable("it did not accept the connection in time"))
        case 97: return failure(.unreachable("the proxy handshake failed")) // CURLE_PROXY (SOCKS)
        default:
            let direct = CurlErrorText.apiError(code: code, message: message, host: host)
            guard case .transport(let text) = direct else { return direct }
            return .transport("\(text), through the proxy \(proxy)")
        }
    }

    /// What a proxy's own HTTP answer (to `CONNECT`, or a 407 to a plain-http request) means.
    static func problem(status: Int, proxy: ProxyServer) -> ProxyFailure.Problem {
        switch status {
        case 407: return .authenticationRequired(credentialsGiven: proxy.hasCredentials)
        case 500...: return .upstreamFailed(status: status)
        default: return .refused(status: status)
        }
    }

    /// `problem` with `proxy` for a request to `host`, as an `APIError`.
    static func failure(_ problem: ProxyFailure.Problem, host: String, proxy: ProxyServer) -> APIError {
        .proxy(ProxyFailure(proxy: proxy.address, variable: proxy.variable, host: host, problem: problem))
    }
}
#endif

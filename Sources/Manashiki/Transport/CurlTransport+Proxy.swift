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

    /// A host certificate that did not verify on a connection through a proxy says so: a
    /// TLS-inspecting corporate proxy presents certificates from its own CA for every host, and
    /// the operator must trust that CA, not the host's.
    func throughProxy(_ error: APIError, host: String, connectStatus: Int) -> APIError {
        guard let server, tlsPeer(host: host, connectStatus: connectStatus) == host,
              case .untrustedCertificate(let peer, let reason) = error else { return error }
        return .untrustedCertificate(host: peer, reason: "\(reason) (through the proxy \(server), which presents its own CA's certificates if it inspects TLS)")
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
        case 56 where connectStatus == 0 && message.hasPrefix("Proxy CONNECT aborted"):
            // The proxy hung up instead of answering CONNECT: not the host's doing.
            return failure(.unreachable("it closed the connection instead of answering CONNECT \(host) (some proxies do so for a host or port their rules forbid)"))
        case 97: return failure(socksProblem(message: message, proxy: proxy)) // CURLE_PROXY (SOCKS)
        case 6 where ["socks5", "socks4"].contains(proxy.scheme):
            // The name is resolved here, not by the proxy: say how to let the proxy do it.
            return .transport("could not resolve \(host) on this machine, to reach it through the proxy \(proxy): \(proxy.scheme):// resolves host names here, \(proxy.scheme == "socks5" ? "socks5h" : "socks4a"):// lets the proxy resolve them")
        default:
            let direct = CurlErrorText.apiError(code: code, message: message, host: host)
            guard case .transport(let text) = direct else { return direct }
            return .transport("\(text), through the proxy \(proxy)")
        }
    }

    /// What libcurl's `CURLE_PROXY` message (lib/socks.c, stable since curl 7.x) says about a
    /// SOCKS handshake: credentials wanted or rejected (terminal), the proxy's reply to the
    /// connection request (`socksConnectFailed`), or a handshake that broke off (retryable).
    static func socksProblem(message: String, proxy: ProxyServer) -> ProxyFailure.Problem {
        if message.hasPrefix("User was rejected by the SOCKS5 server") {
            return .authenticationRequired(credentialsGiven: true)
        }
        if message.hasPrefix("No authentication method was acceptable") {
            return .authenticationRequired(credentialsGiven: proxy.hasCredentials)
        }
        // "Can't complete SOCKS5 connection to HOST. (5)" /
        // "Can't complete SOCKS4 connection to 1.2.3.4:443. (91), request rejected or failed."
        if message.hasPrefix("Can't complete SOCKS"), let open = message.range(of: ". (", options: .backwards),
           let reply = Int(message[open.upperBound...].prefix { $0.isNumber }) {
            return .socksConnectFailed(reply: reply)
        }
        return .unreachable("the SOCKS handshake failed (check the proxy speaks the protocol of \(proxy.scheme)://)")
    }

    /// What a proxy's own HTTP answer (to `CONNECT`, or a 407 to a plain-http request) means.
    static func problem(status: Int, proxy: ProxyServer) -> ProxyFailure.Problem {
        switch status {
        case 407: return .authenticationRequired(credentialsGiven: proxy.hasCredentials)
        case 401: return .unauthorized(credentialsGiven: proxy.hasCredentials) // a CONNECT answer is the proxy's own
        case 500...: return .upstreamFailed(status: status)
        default: return .refused(status: status)
        }
    }

    /// `problem` with `proxy` for a request to `host`, as an `APIError`.
    static func failure(_ problem: ProxyFailure.Problem, host: String, proxy: ProxyServer) -> APIError {
        .proxy(ProxyFailure(proxy: proxy.address, variable: proxy.variable, host: host, problem: problem, scheme: proxy.scheme))
    }
}

/// Stands between the transfer and the consumer when a proxy is in the route, and turns the
/// proxy's own refusals into proxy errors before the consumer sees them:
/// - a 407 (only a proxy sends it);
/// - a 401 through an HTTP(S) proxy that carries `Proxy-Authenticate`, or whose body is not
///   the registry's error JSON (`{"error": {"code": …}}`, CONTRACT §4, which every 401 of the
///   registry carries): the proxy's own answer, not the registry rejecting the key. Some
///   corporate proxies answer 401 instead of 407, and read as "API key rejected" the user
///   would replace a good key. Such a 401 is held (bodies are small, at most `maxHeld` bytes)
///   until the transfer ends; one with the registry's error JSON goes on unchanged, so the
///   contract's mapping applies. A SOCKS proxy relays bytes and cannot answer HTTP: no check.
final class ProxyAnswerFilter: HTTPBodyConsumer, @unchecked Sendable {
    /// The most body bytes of a held 401 (the registry's error JSON is far smaller).
    static let maxHeld = 64 << 10
    private let consumer: any HTTPBodyConsumer
    private let proxy: ProxyServer?
    private let host: String
    private var held: HTTPResponseHead?
    private var heldBody = Data()

    init(_ consumer: any HTTPBodyConsumer, route: ProxyRoute, host: String) {
        self.consumer = consumer
        proxy = route.server
        self.host = host
    }

    private var speaksHTTP: Bool { proxy.map { $0.scheme == "http" || $0.scheme == "https" } ?? false }

    func receive(head: HTTPResponseHead) async throws {
        if head.status == 407, let proxy { // only a proxy answers 407 (plain http)
            throw CurlProxyErrorText.failure(CurlProxyErrorText.problem(status: 407, proxy: proxy), host: host, proxy: proxy)
        }
        if head.status == 401, speaksHTTP {
            if head.headers["Proxy-Authenticate"] != nil { throw unauthorized() }
            held = head
            return
        }
        try await consumer.receive(head: head)
    }

    func receive(chunk: Data) async throws {
        guard held != nil else { return try await consumer.receive(chunk: chunk) }
        heldBody.append(chunk)
        if heldBody.count > Self.maxHeld { throw unauthorized() }
    }

    /// Ends a transfer that completed: a held 401 is handed on if it is the registry's, else
    /// thrown as the proxy's.
    func finish() async throws {
        guard let head = held else { return }
        held = nil
        guard ErrorBody.decode(heldBody)?.code != nil else { throw unauthorized() }
        try await consumer.receive(head: head)
        if !heldBody.isEmpty { try await consumer.receive(chunk: heldBody) }
    }

    private func unauthorized() -> APIError {
        guard let proxy else { return .unauthorized }
        return CurlProxyErrorText.failure(.unauthorized(credentialsGiven: proxy.hasCredentials), host: host, proxy: proxy)
    }
}
#endif

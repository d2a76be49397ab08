import Foundation
import Testing
@testable import Manashiki

#if os(Linux)
/// libcurl's outcome of a request through a proxy → the error (docs/networking.md, "Proxies").
@Suite("CurlTransport: failures through a proxy")
struct CurlProxyErrorTextTests {
    static let proxy = try! ProxyServer(variable: "HTTPS_PROXY", value: "http://alice:s3cr3t@proxy.corp:3128")

    @Test("libcurl codes and CONNECT answers map to proxy failures naming the proxy, never its credentials", arguments: [
        (Int32(7), "Failed to connect to proxy.corp port 3128 after 0 ms: Couldn't connect to server", 0,
         APIError.proxy(ProxyFailure(proxy: "proxy.corp:3128", variable: "HTTPS_PROXY", host: "registry.example", problem: .unreachable("connection refused or unreachable")))),
        (5, "Could not resolve proxy: proxy.corp", 0,
         .proxy(ProxyFailure(proxy: "proxy.corp:3128", variable: "HTTPS_PROXY", host: "registry.example", problem: .unreachable("its name could not be resolved")))),
        (28, "Connection timed out after 30001 milliseconds", 0,
         .proxy(ProxyFailure(proxy: "proxy.corp:3128", variable: "HTTPS_PROXY", host: "registry.example", problem: .unreachable("it did not accept the connection in time")))),
        (56, "CONNECT tunnel failed, response 407", 407,
         .proxy(ProxyFailure(proxy: "proxy.corp:3128", variable: "HTTPS_PROXY", host: "registry.example", problem: .authenticationRequired(credentialsGiven: true)))),
        (56, "CONNECT tunnel failed, response 403", 403,
         .proxy(ProxyFailure(proxy: "proxy.corp:3128", variable: "HTTPS_PROXY", host: "registry.example", problem: .refused(status: 403)))),
        (56, "CONNECT tunnel failed, response 502", 502,
         .proxy(ProxyFailure(proxy: "proxy.corp:3128", variable: "HTTPS_PROXY", host: "registry.example", problem: .upstreamFailed(status: 502)))),
        // after the tunnel is up, failures are the host's, said to go through the proxy
        (28, "Operation too slow. Less than 1 bytes/sec transferred the last 60 seconds", 200,
         .transport("registry.example stopped sending data (timed out), through the proxy proxy.corp:3128 (from HTTPS_PROXY)")),
        (56, "Recv failure: Connection reset by peer", 200,
         .transport("the connection to registry.example was lost (reset), through the proxy proxy.corp:3128 (from HTTPS_PROXY)")),
    ] as [(Int32, String, Int, APIError)])
    func mapping(code: Int32, message: String, connectStatus: Int, expected: APIError) {
        let error = CurlProxyErrorText.apiError(code: code, message: message, host: "registry.example", proxy: Self.proxy, connectStatus: connectStatus)
        #expect(error == expected)
        #expect(!error.description.contains("s3cr3t") && !error.description.contains("alice"))
    }

    static let socks = try! ProxyServer(variable: "ALL_PROXY", value: "socks5h://alice:s3cr3t@proxy.corp:1080")

    @Test("libcurl's SOCKS messages (CURLE_PROXY, 97): credentials wanted or rejected are terminal, the proxy's reply to the connection request keeps its code, a broken handshake is retryable", arguments: [
        ("User was rejected by the SOCKS5 server (1 1).", ProxyFailure.Problem.authenticationRequired(credentialsGiven: true), false),
        ("No authentication method was acceptable.", .authenticationRequired(credentialsGiven: true), false),
        ("Can't complete SOCKS5 connection to registry.example. (2)", .socksConnectFailed(reply: 2), false),
        ("Can't complete SOCKS5 connection to registry.example. (5)", .socksConnectFailed(reply: 5), true),
        ("connection to proxy closed", .unreachable("the SOCKS handshake failed (check the proxy speaks the protocol of socks5h://)"), true),
    ] as [(String, ProxyFailure.Problem, Bool)])
    func socks(message: String, problem: ProxyFailure.Problem, retryable: Bool) {
        let error = CurlProxyErrorText.apiError(code: 97, message: message, host: "registry.example", proxy: Self.socks, connectStatus: 0)
        #expect(error == .proxy(ProxyFailure(proxy: "proxy.corp:1080", variable: "ALL_PROXY", host: "registry.example", problem: problem, scheme: "socks5h")))
        #expect(error.isRetryable == retryable)
        #expect(error.description.contains("the SOCKS5 proxy proxy.corp:1080 (from ALL_PROXY)") || error.description.contains("The SOCKS5 proxy proxy.corp:1080 (from ALL_PROXY)"), "\(error.description)")
        #expect(!error.description.contains("s3cr3t") && !error.description.contains("alice"))
    }

    @Test("socks5:// (names resolved here) and a name this machine cannot resolve: the error says socks5h:// lets the proxy resolve it")
    func socksLocalResolution() throws {
        let proxy = try ProxyServer(variable: "ALL_PROXY", value: "socks5://proxy.corp:1080")
        let error = CurlProxyErrorText.apiError(code: 6, message: "Failed to resolve \"registry.corp\" for SOCKS5 connect.", host: "registry.corp", proxy: proxy, connectStatus: 0)
        #expect(error == .transport("could not resolve registry.corp on this machine, to reach it through the proxy proxy.corp:1080 (from ALL_PROXY): socks5:// resolves host names here, socks5h:// lets the proxy resolve them"))
    }

    @Test("a 401 answering CONNECT is the proxy's own: unauthorized, terminal")
    func connect401() {
        let error = CurlProxyErrorText.apiError(code: 56, message: "CONNECT tunnel failed, response 401", host: "registry.example", proxy: Self.proxy, connectStatus: 401)
        #expect(error == .proxy(ProxyFailure(proxy: "proxy.corp:3128", variable: "HTTPS_PROXY", host: "registry.example", problem: .unauthorized(credentialsGiven: true))))
        #expect(!error.isRetryable)
    }
}
#endif

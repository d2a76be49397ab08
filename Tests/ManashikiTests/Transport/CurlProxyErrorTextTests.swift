import Foundation
import Testing
@testable import Manashiki

#if os(Linux)
/// libcurl's outcome of a request through a proxy → the error (README "Proxies").
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
}
#endif

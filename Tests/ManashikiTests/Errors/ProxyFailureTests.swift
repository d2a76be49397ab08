import Foundation
import Testing
@testable import Manashiki

/// `APIError.proxy`: what each problem says, and whether a retry can help.
@Suite("Proxy failures: text and retryability")
struct ProxyFailureTests {
    @Test("each problem names the proxy and its variable, says what to do, and is retryable only when waiting can help", arguments: [
        (ProxyFailure.Problem.unreachable("connection refused or unreachable"),
         "Could not connect to the proxy 10.0.0.5:3128 (from https_proxy): connection refused or unreachable. Check the proxy is running and https_proxy names it, or add registry.example to no_proxy to connect directly.", true),
        (.authenticationRequired(credentialsGiven: false),
         "The proxy 10.0.0.5:3128 (from https_proxy) requires credentials (HTTP 407 Proxy Authentication Required): put them in the proxy URL, https_proxy=http://USER:PASSWORD@10.0.0.5:3128 (percent-encode special characters).", false),
        (.authenticationRequired(credentialsGiven: true),
         "The proxy 10.0.0.5:3128 (from https_proxy) rejected the credentials in https_proxy (HTTP 407 Proxy Authentication Required). Correct the user name and password in the proxy URL (percent-encode special characters).", false),
        (.refused(status: 403),
         "The proxy 10.0.0.5:3128 (from https_proxy) refused to connect to registry.example (HTTP 403). Ask the proxy's administrator to allow registry.example, or add it to no_proxy if it is reachable directly.", false),
        (.upstreamFailed(status: 502),
         "The proxy 10.0.0.5:3128 (from https_proxy) could not reach registry.example (HTTP 502). This is usually temporary; if it persists, check registry.example is reachable from the proxy.", true),
        (.unauthorized(credentialsGiven: false),
         "The proxy 10.0.0.5:3128 (from https_proxy) answered HTTP 401 Unauthorized for registry.example itself (not the registry's answer): the proxy wants credentials, the API key is not the problem, do not replace it. Put the proxy's credentials in the proxy URL, https_proxy=http://USER:PASSWORD@10.0.0.5:3128 (percent-encode special characters), or add registry.example to no_proxy if it is reachable directly.", false),
        (.invalidSetting("its scheme is not one of http, https"),
         "https_proxy is not a usable proxy URL: its scheme is not one of http, https. Correct it, or unset it to connect directly.", false),
    ] as [(ProxyFailure.Problem, String, Bool)])
    func text(problem: ProxyFailure.Problem, text: String, retryable: Bool) {
        let error = APIError.proxy(ProxyFailure(proxy: "10.0.0.5:3128", variable: "https_proxy", host: "registry.example", problem: problem))
        #expect(error.errorDescription == text)
        #expect(error.isRetryable == retryable)
        #expect(error.httpStatus == nil)
    }

    @Test("a SOCKS proxy's failures say SOCKS5 and its scheme; a reply that forbids the host is terminal, one that could pass is retryable", arguments: [
        (ProxyFailure.Problem.authenticationRequired(credentialsGiven: false),
         "The SOCKS5 proxy 10.0.0.5:1080 (from ALL_PROXY) requires a user name and password (it accepted none of the authentication methods offered): put them in the proxy URL, ALL_PROXY=socks5h://USER:PASSWORD@10.0.0.5:1080 (percent-encode special characters).", false),
        (.authenticationRequired(credentialsGiven: true),
         "The SOCKS5 proxy 10.0.0.5:1080 (from ALL_PROXY) rejected the user name and password in ALL_PROXY. Correct them in the proxy URL (percent-encode special characters).", false),
        (.socksConnectFailed(reply: 2),
         "The SOCKS5 proxy 10.0.0.5:1080 (from ALL_PROXY) refused to connect to registry.example (SOCKS5 reply 2: connection not allowed by its rules). Ask the proxy's administrator to allow registry.example, or add it to no_proxy if it is reachable directly.", false),
        (.socksConnectFailed(reply: 4),
         "The SOCKS5 proxy 10.0.0.5:1080 (from ALL_PROXY) could not reach registry.example (SOCKS5 reply 4: host unreachable). This is usually temporary; if it persists, check registry.example is reachable from the proxy.", true),
    ] as [(ProxyFailure.Problem, String, Bool)])
    func socksText(problem: ProxyFailure.Problem, text: String, retryable: Bool) {
        let error = APIError.proxy(ProxyFailure(proxy: "10.0.0.5:1080", variable: "ALL_PROXY", host: "registry.example", problem: problem, scheme: "socks5h"))
        #expect(error.errorDescription == text)
        #expect(error.isRetryable == retryable)
    }
}

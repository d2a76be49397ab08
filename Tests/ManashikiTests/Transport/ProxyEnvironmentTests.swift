import Foundation
import Testing
@testable import Manashiki

/// The proxy decision: environment + URL → route (docs/networking.md, "Proxies").
@Suite("Proxy decision from the environment")
struct ProxyEnvironmentTests {
    /// A route in a few words: `direct`, `bypassed NO_PROXY`, `proxy HTTP_PROXY http p:3128`, `invalid https_proxy`.
    static func summary(_ route: ProxyRoute) -> String {
        switch route {
        case .direct: return "direct"
        case .bypassed(let variable): return "bypassed \(variable)"
        case .proxy(let s): return "proxy \(s.variable) \(s.scheme) \(s.address)"
        case .invalid(let variable, _): return "invalid \(variable)"
        }
    }

    @Test("which variable chooses the proxy, by scheme, case and CGI", arguments: [
        // nothing set
        ([:], "https://registry.example/api", "direct"),
        ([:], "http://127.0.0.1:8080/api", "direct"),
        // https: lowercase, uppercase, both (lowercase wins), empty counts as unset
        (["https_proxy": "http://a:3128"], "https://registry.example/", "proxy https_proxy http a:3128"),
        (["HTTPS_PROXY": "http://b:3128"], "https://registry.example/", "proxy HTTPS_PROXY http b:3128"),
        (["https_proxy": "http://a:3128", "HTTPS_PROXY": "http://b:3128"], "https://registry.example/", "proxy https_proxy http a:3128"),
        (["https_proxy": "", "HTTPS_PROXY": "http://b:3128"], "https://registry.example/", "proxy HTTPS_PROXY http b:3128"),
        // http: lowercase, uppercase (what libcurl ignores), both
        (["http_proxy": "http://a:3128"], "http://127.0.0.1:8080/", "proxy http_proxy http a:3128"),
        (["HTTP_PROXY": "http://b:3128"], "http://127.0.0.1:8080/", "proxy HTTP_PROXY http b:3128"),
        (["http_proxy": "http://a:3128", "HTTP_PROXY": "http://b:3128"], "http://127.0.0.1:8080/", "proxy http_proxy http a:3128"),
        // CGI (httpoxy): uppercase HTTP_PROXY may come from a client's Proxy: header
        (["HTTP_PROXY": "http://b:3128", "REQUEST_METHOD": "GET"], "http://127.0.0.1:8080/", "direct"),
        (["http_proxy": "http://a:3128", "REQUEST_METHOD": "GET"], "http://127.0.0.1:8080/", "proxy http_proxy http a:3128"),
        (["HTTP_PROXY": "http://b:3128", "ALL_PROXY": "http://c:3128", "REQUEST_METHOD": "POST"], "http://127.0.0.1:8080/", "proxy ALL_PROXY http c:3128"),
        (["HTTP_PROXY": "http://b:3128", "REQUEST_METHOD": ""], "http://127.0.0.1:8080/", "proxy HTTP_PROXY http b:3128"),
        (["HTTPS_PROXY": "http://b:3128", "REQUEST_METHOD": "GET"], "https://registry.example/", "proxy HTTPS_PROXY http b:3128"),
        // each scheme's variables apply to that scheme only
        (["HTTP_PROXY": "http://b:3128"], "https://registry.example/", "direct"),
        (["https_proxy": "http://a:3128"], "http://127.0.0.1:8080/", "direct"),
        // all_proxy / ALL_PROXY as the fallback for both
        (["all_proxy": "socks5h://s:1080"], "https://registry.example/", "proxy all_proxy socks5h s:1080"),
        (["ALL_PROXY": "http://c:3128"], "http://127.0.0.1:8080/", "proxy ALL_PROXY http c:3128"),
        (["all_proxy": "http://a:1", "ALL_PROXY": "http://c:3128"], "https://registry.example/", "proxy all_proxy http a:1"),
        (["https_proxy": "http://a:3128", "all_proxy": "http://c:3128"], "https://registry.example/", "proxy https_proxy http a:3128"),
        // the proxy URL: no scheme means http; libcurl's default ports; IPv6
        (["https_proxy": "proxy.corp:8080"], "https://registry.example/", "proxy https_proxy http proxy.corp:8080"),
        (["https_proxy": "http://proxy.corp"], "https://registry.example/", "proxy https_proxy http proxy.corp:1080"),
        (["https_proxy": "https://proxy.corp"], "https://registry.example/", "proxy https_proxy https proxy.corp:443"),
        (["https_proxy": "http://[::1]:3128/"], "https://registry.example/", "proxy https_proxy http [::1]:3128"),
        (["https_proxy": "http://user:p%40ss@proxy.corp:3128"], "https://registry.example/", "proxy https_proxy http proxy.corp:3128"),
        // unusable values
        (["https_proxy": "ftp://proxy.corp:21"], "https://registry.example/", "invalid https_proxy"),
        (["https_proxy": "http://"], "https://registry.example/", "invalid https_proxy"),
        (["HTTP_PROXY": "http://proxy.corp:99999"], "http://127.0.0.1:8080/", "invalid HTTP_PROXY"),
    ] as [([String: String], String, String)])
    func variables(environment: [String: String], url: String, expected: String) throws {
        let route = ProxyEnvironment(environment).route(for: try #require(URL(string: url)))
        #expect(Self.summary(route) == expected)
    }

    @Test("no_proxy and NO_PROXY send matching hosts direct", arguments: [
        // names: exact, subdomain, leading dot, *., not a mere suffix, case, trailing dot
        ("registry.example", "https://registry.example/", "bypassed no_proxy"),
        ("example", "https://registry.example/", "bypassed no_proxy"),
        (".example", "https://registry.example/", "bypassed no_proxy"),
        ("*.example", "https://registry.example/", "bypassed no_proxy"),
        ("gistry.example", "https://registry.example/", "proxy https_proxy http p:3128"),
        ("REGISTRY.Example.", "https://registry.example/", "bypassed no_proxy"),
        ("other.example, registry.example", "https://registry.example/", "bypassed no_proxy"),
        ("other.example registry.example", "https://registry.example/", "bypassed no_proxy"),
        // * alone, or as an entry
        ("*", "https://registry.example/", "bypassed no_proxy"),
        ("other.example,*", "https://registry.example/", "bypassed no_proxy"),
        // ports: an entry with a port applies to that port only; without, to every port
        ("registry.example:8443", "https://registry.example:8443/", "bypassed no_proxy"),
        ("registry.example:8443", "https://registry.example/", "proxy https_proxy http p:3128"),
        ("registry.example:443", "https://registry.example/", "bypassed no_proxy"),
        ("registry.example", "https://registry.example:8443/", "bypassed no_proxy"),
        // IPs: exact, CIDR, not by name; IPv6 plain, CIDR, bracketed with a port
        ("127.0.0.1", "https://127.0.0.1:9443/", "bypassed no_proxy"),
        ("127.0.0.0/8", "https://127.3.2.1/", "bypassed no_proxy"),
        ("10.0.0.0/8", "https://127.0.0.1/", "proxy https_proxy http p:3128"),
        ("127.0.0.1:9443", "https://127.0.0.1:9443/", "bypassed no_proxy"),
        ("127.0.0.1:9443", "https://127.0.0.1:9444/", "proxy https_proxy http p:3128"),
        ("localhost", "https://127.0.0.1/", "proxy https_proxy http p:3128"),
        ("::1", "https://[::1]:9443/", "bypassed no_proxy"),
        ("fd00::/8", "https://[fd12::5]/", "bypassed no_proxy"),
        ("[::1]:9443", "https://[::1]:9443/", "bypassed no_proxy"),
        ("[::1]:9443", "https://[::1]:9444/", "proxy https_proxy http p:3128"),
        ("127.0.0.1", "https://[::1]/", "proxy https_proxy http p:3128"),
        // an empty list bypasses nothing
        ("", "https://registry.example/", "proxy https_proxy http p:3128"),
    ])
    func noProxy(list: String, url: String, expected: String) throws {
        let route = ProxyEnvironment(["https_proxy": "http://p:3128", "no_proxy": list]).route(for: try #require(URL(string: url)))
        #expect(Self.summary(route) == expected)
    }

    @Test("lowercase no_proxy wins over NO_PROXY; NO_PROXY alone applies; a bypassed host ignores a malformed proxy", arguments: [
        (["https_proxy": "http://p:3128", "NO_PROXY": "registry.example"], "bypassed NO_PROXY"),
        (["https_proxy": "http://p:3128", "no_proxy": "other.example", "NO_PROXY": "registry.example"], "proxy https_proxy http p:3128"),
        (["https_proxy": "http://p:3128", "no_proxy": "", "NO_PROXY": "registry.example"], "bypassed NO_PROXY"),
        (["https_proxy": "ftp://p", "no_proxy": "registry.example"], "bypassed no_proxy"),
        (["no_proxy": "registry.example"], "direct"),
    ] as [([String: String], String)])
    func noProxyVariables(environment: [String: String], expected: String) throws {
        let route = ProxyEnvironment(environment).route(for: try #require(URL(string: "https://registry.example/api/models")))
        #expect(Self.summary(route) == expected)
    }

    @Test("the proxy's text form names host, port and variable, never its credentials")
    func noCredentialsInText() throws {
        let server = try ProxyServer(variable: "https_proxy", value: "http://alice:s3cr3t-Pa55@proxy.corp:3128")
        #expect(server.hasCredentials)
        #expect(server.description == "proxy.corp:3128 (from https_proxy)")
        #expect(server.curlURL == "http://alice:s3cr3t-Pa55@proxy.corp:3128")
        #expect(try ProxyServer(variable: "HTTP_PROXY", value: "proxy.corp:3128").hasCredentials == false)
    }

    @Test("an unusable proxy variable's reason never quotes its value")
    func invalidReasonHidesValue() throws {
        for value in ["ftp://alice:s3cr3t@proxy.corp", "http://alice:s3cr3t@", "http://alice:s3cr3t@proxy.corp:0"] {
            let route = ProxyEnvironment(["https_proxy": value]).route(for: try #require(URL(string: "https://registry.example/")))
            guard case .invalid(_, let reason) = route else {
                Issue.record("\(value) was accepted")
                continue
            }
            #expect(!reason.contains("s3cr3t") && !reason.contains("alice"))
        }
    }

    @Test("user names and passwords must be percent-encoded (libcurl cannot parse them otherwise); encoded ones are accepted", arguments: [
        ("http://alice:p@ss@proxy.corp:3128", false), ("http://alice:pa ss@proxy.corp:3128", false), ("http://al ice:pass@proxy.corp:3128", false),
        ("http://alice:p%zzss@proxy.corp:3128", false),
        ("http://alice:p%40ss@proxy.corp:3128", true), ("http://al%20ice:p%3Ass%2F@proxy.corp:3128", true), ("http://alice:p!$&'()*+,;=~-._ss@proxy.corp:3128", true),
        ("http://alice@proxy.corp:3128", true),
    ])
    func userInfoEncoding(_ value: String, _ accepted: Bool) throws {
        let route = ProxyEnvironment(["https_proxy": value]).route(for: try #require(URL(string: "https://registry.example/")))
        if accepted {
            #expect(route.server?.address == "proxy.corp:3128", "\(route)")
        } else {
            guard case .invalid(_, let reason) = route else { Issue.record("\(value) was accepted: \(route)"); return }
            #expect(reason.hasPrefix("its user name or password holds a character that must be percent-encoded"), "\(reason)")
        }
    }

    @Test("a bracketed IPv6 range ([fd00::]/8) is a range, not the one address", arguments: [
        ("[fd00::]/8", "https://[fd12::5]/", "bypassed no_proxy"), ("[fd00::]/8", "https://[fe80::1]/", "proxy https_proxy http p:3128"),
        ("[fd00::]", "https://[fd00::]/", "bypassed no_proxy"), ("[fd00::]", "https://[fd00::1]/", "proxy https_proxy http p:3128"),
    ])
    func bracketedRange(list: String, url: String, expected: String) throws {
        let route = ProxyEnvironment(["https_proxy": "http://p:3128", "no_proxy": list]).route(for: try #require(URL(string: url)))
        #expect(Self.summary(route) == expected)
    }
}

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
import ManashikiRegistry
import ManashikiTestSupport
import ManashikiLoopback

/// Proxies from the environment, through a real logging forward proxy (Debian's tinyproxy) in
/// front of the development registry, with the built binary (docs/networking.md, "Proxies").
@Suite("proxies: HTTP_PROXY, no_proxy, errors and credentials (built binary, tinyproxy, development registry)")
struct ProxyTests {
    /// A password tests look for in every output.
    static let password = "s3cr3t-Pr0xyPass"

    /// `http://127.0.0.1:port` of the registry's API and storage origins, as tinyproxy logs them.
    static func origins(_ fixture: Fixture) -> (api: String, storage: String) {
        let api = fixture.registry.apiBaseURL, storage = fixture.registry.storageBaseURL
        return ("http://\(api.host!):\(api.port!)/", "http://\(storage.host!):\(storage.port!)/")
    }

    /// Every output of a run, for secrets.
    static func expectNoSecrets(_ result: ChildResult, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!result.all.contains(password), "the proxy password was printed: \(result.all)", sourceLocation: sourceLocation)
        #expect(!result.all.contains("alice:"), "the proxy user was printed: \(result.all)", sourceLocation: sourceLocation)
        #expect(!result.all.contains(Fixture.key), sourceLocation: sourceLocation)
    }

    /// The storage origin's requests carried no credential of any kind.
    static func expectStorageGotNoKey(_ fixture: Fixture, atLeast: Int = 2, sourceLocation: SourceLocation = #_sourceLocation) {
        let storage = fixture.registry.requestLog().filter { $0.origin == .storage }
        #expect(storage.count >= atLeast, "no storage request reached the registry", sourceLocation: sourceLocation)
        for request in storage {
            #expect(request.header("X-API-Key") == nil && request.header("Authorization") == nil,
                    "the storage host got a credential: \(request.headers)", sourceLocation: sourceLocation)
        }
    }

    @Test("uppercase HTTP_PROXY alone: the sync goes through the proxy (API and storage requests in its log) and the storage host never gets the key", .requires(.tinyproxy))
    func uppercaseHTTPProxy() async throws {
        let fixture = try Fixture()
        let proxy = try await TinyProxy()
        let result = try await fixture.run(["sync", "--json", "-v"],
                                           environment: fixture.environment.merging(["HTTP_PROXY": "http://\(proxy.address)"]) { $1 })
        let requests = await proxy.stop()
        #expect(result.status == 0, "\(result.all)")
        #expect(fixture.isInstalledIntact("alpha") && fixture.isInstalledIntact("beta"))
        let (api, storage) = Self.origins(fixture)
        #expect(requests.contains { $0.hasPrefix("GET \(api)api/models") }, "\(requests)")
        #expect(requests.filter { $0.hasPrefix("GET \(storage)") }.count == 2, "\(requests)")
        #expect(requests.allSatisfy { $0.hasPrefix("GET \(api)") || $0.hasPrefix("GET \(storage)") }, "\(requests)")
        Self.expectStorageGotNoKey(fixture)
        Self.expectNoSecrets(result)
    }

    @Test("under CGI (REQUEST_METHOD set) uppercase HTTP_PROXY is ignored (httpoxy); lowercase http_proxy still applies", .requires(.tinyproxy), arguments: [
        ("HTTP_PROXY", false), ("http_proxy", true),
    ])
    func cgiIgnoresUppercase(variable: String, used: Bool) async throws {
        let fixture = try Fixture()
        let proxy = try await TinyProxy()
        let environment = fixture.environment.merging([variable: "http://\(proxy.address)", "REQUEST_METHOD": "GET"]) { $1 }
        let result = try await fixture.run(["sync", "--quiet"], environment: environment)
        let requests = await proxy.stop()
        #expect(result.status == 0, "\(result.all)")
        #expect(fixture.isInstalledIntact("alpha") && fixture.isInstalledIntact("beta"))
        #expect(requests.isEmpty == !used, "\(requests)")
    }

    @Test("no_proxy covering the registry sends it direct: by address, by address and port, and per origin", .requires(.tinyproxy), arguments: [
        ("127.0.0.1", false, false),
        ("localhost, 127.0.0.0/8", false, false),
        ("API:PORT,STORAGE:PORT", false, false),   // Go's host:port form (libcurl alone ignores it)
        ("STORAGE:PORT", true, false),            // the API through the proxy, storage direct
        ("127.0.0.1:1", true, true),              // another port: not covered
    ])
    func noProxy(list: String, apiProxied: Bool, storageProxied: Bool) async throws {
        let fixture = try Fixture()
        let proxy = try await TinyProxy()
        let value = list.replacingOccurrences(of: "API:PORT", with: "127.0.0.1:\(fixture.registry.apiBaseURL.port!)")
            .replacingOccurrences(of: "STORAGE:PORT", with: "127.0.0.1:\(fixture.registry.storageBaseURL.port!)")
        let environment = fixture.environment.merging(["http_proxy": "http://\(proxy.address)", "no_proxy": value]) { $1 }
        let result = try await fixture.run(["sync", "--quiet"], environment: environment)
        let requests = await proxy.stop()
        #expect(result.status == 0, "\(result.all)")
        #expect(fixture.isInstalledIntact("alpha") && fixture.isInstalledIntact("beta"))
        let (api, storage) = Self.origins(fixture)
        #expect(requests.contains { $0.hasPrefix("GET \(api)") } == apiProxied, "\(requests)")
        #expect(requests.contains { $0.hasPrefix("GET \(storage)") } == storageProxied, "\(requests)")
    }

    @Test("values from an environment file with CRLF line endings (a trailing \\r): the proxy URL still works, and no_proxy still sends the registry direct", .requires(.tinyproxy), arguments: [
        ("http_proxy", true), ("no_proxy", false),
    ])
    func carriageReturn(variable: String, proxied: Bool) async throws {
        let fixture = try Fixture(models: ["alpha"])
        let proxy = try await TinyProxy()
        var environment = fixture.environment.merging(["http_proxy": "http://\(proxy.address)\r"]) { $1 }
        if variable == "no_proxy" { environment["http_proxy"] = "http://\(proxy.address)"; environment["no_proxy"] = "localhost,127.0.0.1\r" }
        let result = try await fixture.run(["sync", "--json"], environment: environment)
        let requests = await proxy.stop()
        #expect(result.status == 0, "\(result.all)")
        #expect(fixture.isInstalledIntact("alpha"))
        #expect(requests.isEmpty == !proxied, "\(requests)")
    }

    @Test("a proxy that is down: exit 1, a retryable error naming the proxy and its variable, never its password", arguments: [false, true])
    func proxyDown(json: Bool) async throws {
        let fixture = try Fixture()
        let port = try LoopbackPort.free() // nothing listens there
        let environment = fixture.environment.merging(["HTTP_PROXY": "http://alice:\(Self.password)@127.0.0.1:\(port)"]) { $1 }
        let result = try await fixture.run(json ? ["sync", "--json"] : ["sync"], environment: environment)
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("Could not connect to the proxy 127.0.0.1:\(port) (from HTTP_PROXY): connection refused or unreachable. Check the proxy is running and HTTP_PROXY names it, or add 127.0.0.1 to no_proxy to connect directly."),
                "\(result.stderr)")
        if json {
            let error = try #require(result.summary()["error"] as? [String: Any], "\(result.stdout)")
            #expect(error["kind"] as? String == "retryable", "\(error)")
            #expect((error["message"] as? String)?.contains("the proxy 127.0.0.1:\(port) (from HTTP_PROXY)") == true, "\(error)")
        }
        #expect(fixture.installed("alpha") == nil)
        #expect(fixture.registry.requestLog().isEmpty)
        Self.expectNoSecrets(result)
    }

    @Test("a proxy that wants credentials: without them a terminal 407 error saying to put them in the proxy URL; with them the sync succeeds and never prints them", .requires(.tinyproxy))
    func proxyCredentials() async throws {
        let fixture = try Fixture()
        let proxy = try await TinyProxy(extra: ["BasicAuth alice \(Self.password)"])
        let refused = try await fixture.run(["sync", "--json"], environment: fixture.environment.merging(["HTTP_PROXY": "http://\(proxy.address)"]) { $1 })
        let accepted = try await fixture.run(["sync", "--json", "-v"],
                                             environment: fixture.environment.merging(["HTTP_PROXY": "http://alice:\(Self.password)@\(proxy.address)"]) { $1 })
        let requests = await proxy.stop()

        #expect(refused.status == 1, "\(refused.all)")
        #expect(refused.stderr.contains("The proxy \(proxy.address) (from HTTP_PROXY) requires credentials (HTTP 407 Proxy Authentication Required): put them in the proxy URL, HTTP_PROXY=http://USER:PASSWORD@\(proxy.address)"),
                "\(refused.stderr)")
        let error = try #require(refused.summary()["error"] as? [String: Any], "\(refused.stdout)")
        #expect(error["kind"] as? String == "terminal", "\(error)")

        #expect(accepted.status == 0, "\(accepted.all)")
        #expect(fixture.isInstalledIntact("alpha") && fixture.isInstalledIntact("beta"))
        #expect(requests.filter { $0.hasPrefix("GET \(Self.origins(fixture).storage)") }.count == 2, "\(requests)")
        Self.expectStorageGotNoKey(fixture)
        Self.expectNoSecrets(refused)
        Self.expectNoSecrets(accepted)
    }

    @Test("an https registry (nginx with a private CA) through HTTPS_PROXY: the sync succeeds, and the proxy sees only CONNECT host:port, never a request or the key", .requires(.tinyproxy, .nginx, .openssl))
    func httpsThroughConnect() async throws {
        let setup = try await PrivateCATests.Setup()
        let proxy = try await TinyProxy()
        try setup.writeManifest()
        let result = try await setup.run(["sync", "--json", "-v"], environment: [
            "HTTPS_PROXY": "http://\(proxy.address)", "SSL_CERT_FILE": setup.ca.certificate.path,
        ])
        let requests = await proxy.stop()
        let proxied = setup.proxiedRequests
        await setup.stop()
        #expect(result.status == 0, "\(result.all)")
        #expect(setup.fixture.isInstalledIntact("alpha"))
        #expect(proxied >= 2, "nginx relayed \(proxied) requests") // catalog and ticket, through the tunnel
        let tunnel = "CONNECT \(setup.nginx.baseURL.replacingOccurrences(of: "https://", with: "")) HTTP/1.1"
        #expect(!requests.isEmpty && requests.allSatisfy { $0 == tunnel }, "\(requests)")
        // The storage URL is plain http to loopback: HTTPS_PROXY does not apply to it.
        Self.expectStorageGotNoKey(setup.fixture, atLeast: 1)
        Self.expectNoSecrets(result)
    }

    @Test("an https registry through CONNECT whose certificate this machine does not trust (as behind a TLS-inspecting proxy): a terminal error naming the host that says the connection went through the proxy, tried once", .requires(.tinyproxy, .nginx, .openssl))
    func untrustedThroughProxy() async throws {
        let setup = try await PrivateCATests.Setup()
        let proxy = try await TinyProxy()
        try setup.writeManifest()
        let result = try await setup.run(["sync", "--json"], environment: ["HTTPS_PROXY": "http://alice:\(Self.password)@\(proxy.address)"])
        let requests = await proxy.stop()
        await setup.stop()
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("the certificate of 127.0.0.1 is not trusted: unable to get local issuer certificate (through the proxy \(proxy.address) (from HTTPS_PROXY), which presents its own CA's certificates if it inspects TLS)"),
                "\(result.stderr)")
        #expect(result.stderr.contains(PrivateCATests.advice), "\(result.stderr)")
        let error = try #require(result.summary()["error"] as? [String: Any], "\(result.stdout)")
        #expect(error["kind"] as? String == "terminal", "\(error)")
        #expect(requests.count == 1, "\(requests)")
        Self.expectNoSecrets(result)
    }

    @Test("a proxy that hangs up instead of answering CONNECT: the error names the proxy and says so, not a reset by the registry")
    func connectClosed() async throws {
        let fixture = try Fixture(models: ["alpha"])
        let proxy = try ScriptedOrigin { _ in [] } // reads the request, then closes
        let closed = try LoopbackPort.free()
        try TestManifest.write(to: fixture.manifestURL, baseURL: try #require(URL(string: "https://127.0.0.1:\(closed)")), store: "models", models: ["alpha"])
        let result = try await fixture.run(["sync", "--json"], environment: fixture.environment.merging(["HTTPS_PROXY": "http://127.0.0.1:\(proxy.port)"]) { $1 })
        let requests = proxy.requests
        proxy.stop()
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("Could not connect to the proxy 127.0.0.1:\(proxy.port) (from HTTPS_PROXY): it closed the connection instead of answering CONNECT 127.0.0.1"), "\(result.stderr)")
        #expect(!result.all.contains("was lost (reset)"), "\(result.all)")
        #expect(requests.allSatisfy { $0.method == "CONNECT" && $0.target == "127.0.0.1:\(closed)" }, "\(requests.map(\.target))")
    }

    @Test("an https registry through the proxy's CONNECT: its refusals are worded errors naming the proxy, terminal or retryable", .requires(.tinyproxy), arguments: [
        (["BasicAuth alice \(ProxyTests.password)"], "requires credentials (HTTP 407 Proxy Authentication Required)", "terminal"),
        (["ConnectPort 443"], "refused to connect to 127.0.0.1 (HTTP 403)", "terminal"),
        ([], "could not reach 127.0.0.1 (HTTP 500)", "retryable"),
    ])
    func connectRefused(extra: [String], text: String, kind: String) async throws {
        let fixture = try Fixture()
        let proxy = try await TinyProxy(extra: extra)
        let closed = try LoopbackPort.free()
        try TestManifest.write(to: fixture.manifestURL, baseURL: try #require(URL(string: "https://127.0.0.1:\(closed)")),
                               store: "models", models: ["alpha"])
        let result = try await fixture.run(["sync", "--json"], environment: fixture.environment.merging(["HTTPS_PROXY": "http://\(proxy.address)"]) { $1 })
        let requests = await proxy.stop()
        #expect(result.status == 1, "\(result.all)")
        #expect(requests.contains("CONNECT 127.0.0.1:\(closed) HTTP/1.1"), "\(requests)")
        #expect(result.stderr.contains("The proxy \(proxy.address) (from HTTPS_PROXY) \(text)"), "\(result.stderr)")
        let error = try #require(result.summary()["error"] as? [String: Any], "\(result.stdout)")
        #expect(error["kind"] as? String == kind, "\(error)")
        Self.expectNoSecrets(result)
    }

    @Test("an https:// proxy whose certificate comes from a private CA (nginx terminating TLS in front of the registry): without the CA a terminal error naming the proxy, not retried; with --ca-bundle the sync goes through it", .requires(.nginx, .openssl))
    func httpsProxyPrivateCA() async throws {
        let fixture = try Fixture(models: ["alpha"])
        let ca = try await TestCertificateAuthority.make()
        defer { ca.remove() }
        // nginx takes the absolute-form request a forward proxy gets (GET http://host:port/path)
        // over TLS and relays it to the registry: an HTTPS proxy for plain-http URLs.
        let api = fixture.registry.apiBaseURL.absoluteString, storage = fixture.registry.storageBaseURL.absoluteString
        let proxy = try await NginxMirror(server: """
            location / {
                if ($http_host = "\(fixture.registry.storageBaseURL.host!):\(fixture.registry.storageBaseURL.port!)") { proxy_pass \(storage); }
                proxy_pass \(api);
            }
            """, tls: try await ca.serverCertificate("proxy", subjectAltName: "IP:127.0.0.1"))
        let environment = fixture.environment.merging(["http_proxy": "https://alice:\(Self.password)@127.0.0.1:\(proxy.port)"]) { $1 }
        let untrusted = try await fixture.run(["sync", "--json"], environment: environment)
        let withFlag = try await fixture.run(["sync", "--json", "--ca-bundle", ca.certificate.path], environment: environment)
        let relayedWithFlag = proxy.accessLog.split(separator: "\n").count
        await proxy.stop()

        #expect(untrusted.status == 1, "\(untrusted.all)")
        #expect(untrusted.stderr.contains("the certificate of the proxy 127.0.0.1:\(proxy.port) (from http_proxy) is not trusted: unable to get local issuer certificate"),
                "\(untrusted.stderr)")
        let error = try #require(untrusted.summary()["error"] as? [String: Any], "\(untrusted.stdout)")
        #expect(error["kind"] as? String == "terminal", "\(error)")
        #expect(!untrusted.all.contains("attempts"), "\(untrusted.all)")
        #expect(withFlag.status == 0, "\(withFlag.all)")
        #expect(fixture.isInstalledIntact("alpha"))
        #expect(relayedWithFlag >= 3, "nginx relayed \(relayedWithFlag) requests") // catalog, ticket, artifact
        Self.expectNoSecrets(untrusted)
        Self.expectNoSecrets(withFlag)
    }

    @Test("a proxy password with an unencoded @ or space: a terminal error saying to percent-encode it, sent nowhere, never retried or printed", arguments: ["@", " "])
    func unencodedPassword(_ character: String) async throws {
        let fixture = try Fixture()
        let port = try LoopbackPort.free()
        let value = "http://alice:\(Self.password)\(character)x@127.0.0.1:\(port)"
        let result = try await fixture.run(["sync", "--json"], environment: fixture.environment.merging(["http_proxy": value]) { $1 })
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("http_proxy is not a usable proxy URL: its user name or password holds a character that must be percent-encoded"), "\(result.stderr)")
        #expect(!result.all.contains("attempts") && !result.all.contains("could not be resolved"), "\(result.all)")
        let error = try #require(result.summary()["error"] as? [String: Any], "\(result.stdout)")
        #expect(error["kind"] as? String == "terminal", "\(error)")
        #expect(fixture.registry.requestLog().isEmpty)
        Self.expectNoSecrets(result)
    }

    @Test("a proxy password that starts with digits and holds an unencoded /, ? or #: a terminal error saying to percent-encode it, never the user name or digits taken for the proxy's host and port", arguments: ["/", "?", "#"])
    func passwordEndingAuthority(_ character: String) async throws {
        let fixture = try Fixture()
        let port = try LoopbackPort.free()
        let value = "http://alice:2024\(character)Winter@127.0.0.1:\(port)"
        let result = try await fixture.run(["sync", "--json"], environment: fixture.environment.merging(["http_proxy": value]) { $1 })
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("http_proxy is not a usable proxy URL: its user name or password holds a character that must be percent-encoded"), "\(result.stderr)")
        let error = try #require(result.summary()["error"] as? [String: Any], "\(result.stdout)")
        #expect(error["kind"] as? String == "terminal", "\(error)")
        #expect(!result.all.contains("alice") && !result.all.contains("2024") && !result.all.contains("Winter"), "\(result.all)")
        #expect(fixture.registry.requestLog().isEmpty)
    }

    @Test("a mirror through a proxy that wants credentials: without them the mirror is skipped with a warning naming the proxy and the registry (no_proxy) serves; with them the mirror serves through the proxy; never a credential printed", .requires(.tinyproxy, .nginx))
    func mirrorThroughProxy() async throws {
        let (fixture, bundle) = try await FleetTests.exported(models: ["alpha"])
        let nginx = try await NginxMirror(root: bundle)
        let proxy = try await TinyProxy(extra: ["BasicAuth alice \(Self.password)"])
        let extra = #""sources": [{"mirror": "\#(nginx.baseURL)"}],"#
        let withoutCredentials = try FleetTests.secondMachine(fixture, "without", models: ["alpha"], extra: extra)
        let withCredentials = try FleetTests.secondMachine(fixture, "with", models: ["alpha"], extra: extra)
        let registryDirect = "127.0.0.1:\(fixture.registry.apiBaseURL.port!),127.0.0.1:\(fixture.registry.storageBaseURL.port!)"
        let skipped = try await CLIProcess.run(["sync", "--json", "-v"], environment: fixture.environment.merging([
            "http_proxy": "http://\(proxy.address)", "no_proxy": registryDirect]) { $1 }, in: withoutCredentials)
        let viaProxy = try await CLIProcess.run(["sync", "--json", "-v"], environment: fixture.environment.merging([
            "http_proxy": "http://alice:\(Self.password)@\(proxy.address)", "no_proxy": registryDirect]) { $1 }, in: withCredentials)
        let requests = await proxy.stop()
        await nginx.stop()

        #expect(skipped.status == 0, "\(skipped.all)")
        #expect(FleetTests.models(skipped.summary())["alpha"]?["source"] as? String == "registry")
        let warnings = skipped.summary()["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.hasPrefix("mirror \(nginx.baseURL) was not used for alpha: The proxy \(proxy.address) (from http_proxy) requires credentials") }, "\(skipped.all)")
        #expect(viaProxy.status == 0, "\(viaProxy.all)")
        #expect(FleetTests.models(viaProxy.summary())["alpha"]?["source"] as? String == "mirror \(nginx.baseURL)")
        #expect(requests.contains { $0.hasPrefix("GET \(nginx.baseURL)/") }, "\(requests)")
        #expect(!requests.contains { $0.contains(":\(fixture.registry.apiBaseURL.port!)/") }, "the registry went through the proxy: \(requests)")
        for dir in [withoutCredentials, withCredentials] { #expect(FleetTests.installed(dir, "alpha") == fixture.registry.artifactBytes(modelId: "alpha")) }
        Self.expectNoSecrets(skipped)
        Self.expectNoSecrets(viaProxy)
    }

    // MARK: SOCKS (microsocks)

    /// A proxy password with characters that must be percent-encoded in the URL (`@`, `:`).
    static let socksPassword = "s3cr3t-Pr0xy@Pass:x"
    static let encodedSocksPassword = "s3cr3t-Pr0xy%40Pass%3Ax"

    /// No form of a SOCKS password in any output.
    static func expectNoSocksSecrets(_ result: ChildResult, sourceLocation: SourceLocation = #_sourceLocation) {
        for secret in [socksPassword, encodedSocksPassword, "s3cr3t-Pr0xy", "alice:"] {
            #expect(!result.all.contains(secret), "a proxy credential was printed: \(result.all)", sourceLocation: sourceLocation)
        }
        #expect(!result.all.contains(Fixture.key), sourceLocation: sourceLocation)
    }

    @Test("a SOCKS5 proxy with a user name and password (percent-encoded @ and : in it): the sync goes through it for the registry and the storage host, whichever variable names it", .requires(.microsocks), arguments: [
        ("ALL_PROXY", "socks5h"), ("all_proxy", "socks5"), ("http_proxy", "socks5h"),
    ])
    func socksProxy(variable: String, scheme: String) async throws {
        let fixture = try Fixture()
        let socks = try await MicroSocks(user: "alice", password: Self.socksPassword)
        let value = "\(scheme)://alice:\(Self.encodedSocksPassword)@\(socks.address)"
        let result = try await fixture.run(["sync", "--json", "-v"], environment: fixture.environment.merging([variable: value]) { $1 })
        let connections = await socks.stop()
        #expect(result.status == 0, "\(result.all)")
        #expect(fixture.isInstalledIntact("alpha") && fixture.isInstalledIntact("beta"))
        let api = "127.0.0.1:\(fixture.registry.apiBaseURL.port!)", storage = "127.0.0.1:\(fixture.registry.storageBaseURL.port!)"
        #expect(connections.contains(api) && connections.contains(storage), "\(connections)")
        #expect(connections.allSatisfy { $0 == api || $0 == storage }, "\(connections)")
        Self.expectStorageGotNoKey(fixture)
        Self.expectNoSocksSecrets(result)
    }

    @Test("an https registry (nginx, private CA) through https_proxy=socks5h://: the TLS connection runs through the SOCKS tunnel and the sync succeeds", .requires(.microsocks, .nginx, .openssl))
    func httpsThroughSocks() async throws {
        let setup = try await PrivateCATests.Setup()
        let socks = try await MicroSocks(user: "alice", password: Self.socksPassword)
        try setup.writeManifest()
        let result = try await setup.run(["sync", "--json", "-v"], environment: [
            "https_proxy": "socks5h://alice:\(Self.encodedSocksPassword)@\(socks.address)", "SSL_CERT_FILE": setup.ca.certificate.path,
        ])
        let connections = await socks.stop()
        let proxied = setup.proxiedRequests
        await setup.stop()
        #expect(result.status == 0, "\(result.all)")
        #expect(setup.fixture.isInstalledIntact("alpha"))
        #expect(proxied >= 2, "nginx relayed \(proxied) requests")
        let nginx = setup.nginx.baseURL.replacingOccurrences(of: "https://", with: "")
        #expect(!connections.isEmpty && connections.allSatisfy { $0 == nginx }, "\(connections)") // storage is plain http: direct
        Self.expectNoSocksSecrets(result)
    }

    @Test("a SOCKS5 proxy that is down: exit 1, a retryable error naming the SOCKS5 proxy and its variable, never the password", arguments: [false, true])
    func socksDown(json: Bool) async throws {
        let fixture = try Fixture()
        let port = try LoopbackPort.free() // nothing listens there
        let environment = fixture.environment.merging(["ALL_PROXY": "socks5h://alice:\(Self.encodedSocksPassword)@127.0.0.1:\(port)"]) { $1 }
        let result = try await fixture.run(json ? ["sync", "--json"] : ["sync"], environment: environment)
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("Could not connect to the SOCKS5 proxy 127.0.0.1:\(port) (from ALL_PROXY): connection refused or unreachable."), "\(result.stderr)")
        if json {
            let error = try #require(result.summary()["error"] as? [String: Any], "\(result.stdout)")
            #expect(error["kind"] as? String == "retryable", "\(error)")
        }
        #expect(fixture.registry.requestLog().isEmpty)
        Self.expectNoSocksSecrets(result)
    }

    @Test("a SOCKS5 proxy that refuses: no credentials or a wrong password is a terminal error naming the proxy and saying what to do, tried once", .requires(.microsocks), arguments: [
        (nil, "requires a user name and password (it accepted none of the authentication methods offered): put them in the proxy URL, ALL_PROXY=socks5h://USER:PASSWORD@"),
        ("wrong-Pr0xyPass", "rejected the user name and password in ALL_PROXY. Correct them in the proxy URL"),
    ] as [(String?, String)])
    func socksRefusesCredentials(password: String?, text: String) async throws {
        let fixture = try Fixture()
        let socks = try await MicroSocks(user: "alice", password: Self.socksPassword)
        let value = "socks5h://\(password.map { "alice:\($0)@" } ?? "")\(socks.address)"
        let result = try await fixture.run(["sync", "--json", "-v"], environment: fixture.environment.merging(["ALL_PROXY": value]) { $1 })
        let connections = await socks.stop()
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("The SOCKS5 proxy \(socks.address) (from ALL_PROXY) \(text)"), "\(result.stderr)")
        let error = try #require(result.summary()["error"] as? [String: Any], "\(result.stdout)")
        #expect(error["kind"] as? String == "terminal", "\(error)")
        #expect(!result.all.contains("attempt"), "retried: \(result.all)")
        #expect(connections.isEmpty && fixture.registry.requestLog().isEmpty, "\(connections)")
        #expect(!result.all.contains("wrong-Pr0xyPass"))
        Self.expectNoSocksSecrets(result)
    }

    // MARK: A proxy that answers 401

    /// A corporate proxy's own 401 page: HTML, `WWW-Authenticate` (not `Proxy-Authenticate`).
    static let proxy401 = ScriptedOrigin.response(401, reason: "Unauthorized", headers: [
        #"WWW-Authenticate: Basic realm="Corporate Web Gateway""#, "Content-Type: text/html",
    ], body: Data("<html><body><h1>Authentication required</h1>Sign in to the web gateway.</body></html>".utf8))

    @Test("a proxy that answers 401 itself (HTML page, or Proxy-Authenticate), for a plain-http registry or to CONNECT: a terminal error naming the proxy that says the API key is not the problem, never 'API key rejected'", arguments: [
        ("html", "http"), ("proxy-authenticate", "http"), ("html", "https"),
    ])
    func proxyAnswers401(kind: String, registryScheme: String) async throws {
        let fixture = try Fixture(models: ["alpha"])
        let answer = kind == "html" ? Self.proxy401
            : ScriptedOrigin.response(401, reason: "Unauthorized", headers: [#"Proxy-Authenticate: Basic realm="corp""#], body: Data())
        let proxy = try ScriptedOrigin(answering: answer)
        if registryScheme == "https" {
            let closed = try LoopbackPort.free()
            try TestManifest.write(to: fixture.manifestURL, baseURL: try #require(URL(string: "https://127.0.0.1:\(closed)")),
                                   store: "models", models: ["alpha"])
        }
        let variable = registryScheme == "https" ? "HTTPS_PROXY" : "http_proxy"
        let result = try await fixture.run(["sync", "--json"], environment: fixture.environment.merging([variable: "http://127.0.0.1:\(proxy.port)"]) { $1 })
        let requests = proxy.requests
        proxy.stop()
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("The proxy 127.0.0.1:\(proxy.port) (from \(variable)) answered HTTP 401 Unauthorized for 127.0.0.1 itself (not the registry's answer): the proxy wants credentials, the API key is not the problem, do not replace it. Put the proxy's credentials in the proxy URL, \(variable)=http://USER:PASSWORD@127.0.0.1:\(proxy.port)"),
                "\(result.stderr)")
        #expect(!result.all.contains("API key (revoked or unknown)") && !result.all.contains("does not accept this API key"), "\(result.all)")
        let error = try #require(result.summary()["error"] as? [String: Any], "\(result.stdout)")
        #expect(error["kind"] as? String == "terminal", "\(error)")
        #expect(requests.count == 1, "retried: \(requests.map(\.target))")
        #expect(requests.first?.method == (registryScheme == "https" ? "CONNECT" : "GET"))
        if registryScheme == "https" { // CONNECT carries no credential meant for the registry
            #expect(requests.first.map { !$0.hasHeader("X-API-Key") && !$0.hasHeader("Authorization") } == true, "\(requests.map(\.headers))")
        }
        #expect(fixture.registry.requestLog().isEmpty)
        Self.expectNoSecrets(result)
    }

    @Test("the registry's own 401 (its error JSON) through a proxy, and a 401 page with no proxy in the route, keep the contract's mapping: the API key is rejected", .requires(.tinyproxy))
    func registry401KeepsContract() async throws {
        let fixture = try Fixture(models: ["alpha"])
        let proxy = try await TinyProxy()
        let unknownKey = ["MANASHIKI_API_KEY": "mk_pub_demo_Unknown0123456789abcdefgh"]
        let throughProxy = try await fixture.run(["sync", "--json"], environment: unknownKey.merging(["http_proxy": "http://\(proxy.address)"]) { $1 })
        let relayed = await proxy.stop()
        // No proxy: a bare 401 page is the registry's (CONTRACT §4: the status alone decides).
        let origin = try ScriptedOrigin(answering: Self.proxy401)
        try TestManifest.write(to: fixture.manifestURL, baseURL: origin.baseURL, store: "models", models: ["alpha"])
        let direct = try await fixture.run(["sync", "--json"])
        origin.stop()
        for result in [throughProxy, direct] {
            #expect(result.status == 1, "\(result.all)")
            #expect(result.stderr.contains("the registry rejected the API key (revoked or unknown)"), "\(result.stderr)")
            #expect(!result.all.contains("proxy"), "\(result.all)")
        }
        #expect(relayed.contains { $0.hasPrefix("GET http://127.0.0.1:\(fixture.registry.apiBaseURL.port!)/api/models") }, "\(relayed)")
    }
}
#endif

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Testing
import Manashiki
import ManashikiRegistry

/// Download URLs, redirects and secrets. Covered elsewhere: `file:`/`ftp:`/remote-http
/// download URLs and storage redirects against the development registry (ManashikiTests
/// DownloadIntegrationTests.refusedDownloadURL / refusedRedirect / allowedRedirect), and the
/// CLI's secret checks for a plain sync (ManashikiSyncCLITests SecretLeakTests).
@Suite("Reliability: URLs and credentials")
struct CredentialTests {
    static let refusedURLs = [
        "file:///etc/passwd",
        "ftp://127.0.0.1/blobs/beta",
        "data:application/octet-stream;base64,AAAA",
        "http://user:pass@127.0.0.1:PORT/blobs/beta?sig=SIGNATURESECRETxyz",
        "http://example.com/blobs/beta?sig=SIGNATURESECRETxyz",
        "http://10.0.0.1/blobs/beta?sig=SIGNATURESECRETxyz",
        "blobs/beta",
    ]

    @Test("a refused download URL (file:, ftp:, data:, userinfo, remote http, relative): that model fails, nothing is fetched", arguments: 0..<7)
    func refusedDownloadURL(index: Int) async throws {
        let s = try ScriptedSync()
        let target = Self.refusedURLs[index].replacingOccurrences(of: "PORT", with: "\(s.registry.origin.port)")
        let result = try await s.expectIsolatedFailure { request, registry in
            guard request.path == "/api/download/beta", let beta = registry.model("beta") else { return nil }
            return ScriptedOrigin.json(registry.ticketJSON(beta, url: target))
        }
        #expect(result.stderr.contains("not allowed") || result.stderr.contains("refused") || result.stderr.contains("URL"), "\(result.stderr)")
        // Only the first (healthy) sync fetched beta; the refused URL was never connected to.
        #expect(s.registry.requests.filter { $0.path == "/blobs/beta" }.count == 1)
    }

    static let refusedRedirects = [
        "file:///etc/passwd",
        "ftp://127.0.0.1/x",
        "data:text/plain,hello",
        "http://user:pass@127.0.0.1:PORT/blobs/beta",
        "http://example.com/blobs/beta",
        "LOOP",
    ]

    @Test("a storage redirect to a refused URL, or a redirect loop: not followed, that model fails", arguments: 0..<6)
    func refusedRedirect(index: Int) async throws {
        let s = try ScriptedSync()
        let port = s.registry.origin.port
        let location = Self.refusedRedirects[index].replacingOccurrences(of: "PORT", with: "\(port)")
        try await s.expectIsolatedFailure { request, _ in
            guard request.path.hasPrefix("/blobs/beta") else { return nil }
            let to = location == "LOOP" ? "http://127.0.0.1:\(port)/blobs/beta-loop?sig=SIGNATURESECRETxyz" : location
            return [.send(ScriptedOrigin.response(302, reason: "Found", headers: ["Location: \(to)"], body: Data()))]
        }
        let hops = s.registry.requests.filter { $0.path.hasPrefix("/blobs/beta") }.count
        #expect(hops >= 1 && hops <= 7, "requests to the storage path: \(hops)")
    }

    @Test("the storage host and a redirect target never receive X-API-Key or Authorization; the API does")
    func credentialsStayOnTheAPI() async throws {
        let s = try ScriptedSync(extraEntries: [])
        // The storage origin redirects to a third origin, which serves the bytes; both record headers.
        let target = try ScriptedOrigin { request in
            let id = String(request.path.split(separator: "/").last ?? "")
            let bytes = ["alpha": ScriptedSync.bytes(1, 20_000), "beta": ScriptedSync.bytes(2, 30_000), "gamma": ScriptedSync.bytes(3, 25_000)][id] ?? Data()
            return [.send(ScriptedOrigin.response(200, body: bytes))]
        }
        let storage = try ScriptedOrigin { request in
            [.send(ScriptedOrigin.response(302, reason: "Found", headers: ["Location: http://localhost:\(target.port)\(request.path)"], body: Data()))]
        }
        defer { target.stop(); storage.stop() }
        try s.writeManifest(models: ["alpha", "gamma"], extraEntries: [#"{"id": "beta", "session": {"env": "TEST_SESSION"}}"#])
        s.registry.privateIds = ["beta"]
        s.registry.setOverride { request, registry in
            guard request.path.hasPrefix("/api/download/"), let m = registry.model(String(request.path.dropFirst("/api/download/".count))) else { return nil }
            return ScriptedOrigin.json(registry.ticketJSON(m, url: "http://127.0.0.1:\(storage.port)/blobs/\(m.id)?sig=SIGNATURESECRETxyz"))
        }
        let token = "mks_SessionTokenSecret0123456789"
        var env = s.environment
        env["TEST_SESSION"] = token
        let result = try await s.run(["sync", "--verbose"], environment: env)
        #expect(result.status == 0, "\(result.all)")
        // The API origin got the key (and the bearer on beta's download): the test is meaningful.
        #expect(s.registry.requests.filter { $0.path.hasPrefix("/api/") }.allSatisfy { $0.header("X-API-Key") == Keys.publishable })
        #expect(s.registry.requests.first { $0.path == "/api/download/beta" }?.header("Authorization") == "Bearer \(token)")
        // Neither the storage host nor the redirect target got any credential.
        #expect(storage.requests.count == 3 && target.requests.count == 3)
        for request in storage.requests + target.requests {
            #expect(!request.hasHeader("X-API-Key") && !request.hasHeader("Authorization") && !request.hasHeader("Cookie"), "\(request.target): \(request.headers)")
            #expect(!request.headers.contains { $0.1.contains(Keys.publishable) || $0.1.contains(token) })
        }
        #expect(!result.all.contains(token) && !result.all.contains(Keys.publishable) && !result.all.contains("SIGNATURESECRET"))
    }

    @Test("an API redirect to another origin is refused and the key is not sent there")
    func apiRedirectToOtherOrigin() async throws {
        let s = try ScriptedSync()
        let elsewhere = try ScriptedOrigin { _ in ScriptedOrigin.json(#"{"models": []}"#) }
        defer { elsewhere.stop() }
        s.registry.setOverride { request, _ in
            request.path == "/api/models" ? [.send(ScriptedOrigin.response(302, reason: "Found", headers: ["Location: http://localhost:\(elsewhere.port)/api/models"], body: Data()))] : nil
        }
        let result = try await s.run()
        #expect(result.status == 1, "\(result.all)")
        #expect(elsewhere.requests.isEmpty)
        #expect(!result.all.contains(Keys.publishable))
    }

    static let verbosities: [[String]] = [["sync"], ["sync", "--verbose"], ["sync", "--json"], ["sync", "--json", "--verbose"], ["sync", "--quiet"], ["plan", "--verbose"], ["status", "--json"], ["verify", "--json", "--verbose"]]

    @Test("the key, a session token and signed URL query strings never appear in stdout, stderr or --json", arguments: 0..<8)
    func noSecretsInOutput(index: Int) async throws {
        let s = try ScriptedSync()
        try s.writeManifest(models: ["alpha", "gamma"], extraEntries: [#"{"id": "beta", "session": {"env": "TEST_SESSION"}}"#])
        s.registry.privateIds = ["beta"]
        let token = "mks_SessionTokenSecret0123456789"
        var env = s.environment
        env["TEST_SESSION"] = token
        #expect(try await s.run(["sync"], environment: env).status == 0)
        s.publishNewVersions()
        // Every failure path that could echo a secret: an error body quoting the key and the token,
        // a refused URL with a signature, a 500 page quoting the signed URL.
        s.registry.setOverride { request, registry in
            switch request.path {
            case "/api/download/alpha":
                return ScriptedOrigin.json(#"{"error": {"code": "bad_request", "message": "key \#(Keys.publishable) token \#(token) is odd"}}"#, status: 400)
            case "/api/download/beta":
                return ScriptedOrigin.json(registry.ticketJSON(registry.model("beta")!, url: "http://example.com/b?sig=SIGNATURESECRETxyz&token=\(token)"))
            case "/api/download/gamma":
                return ScriptedOrigin.json(registry.ticketJSON(registry.model("gamma")!, url: registry.blobURL("gamma")))
            case let p where p.hasPrefix("/blobs/gamma"):
                return [.send(ScriptedOrigin.response(500, reason: "Oops", headers: ["Content-Type: text/html"],
                                                      body: Data("<p>failed: \(registry.blobURL("gamma")) key=\(Keys.publishable)</p>".utf8)))]
            default:
                return nil
            }
        }
        let result = try await s.run(Self.verbosities[index], environment: env)
        #expect(!result.all.contains(Keys.publishable), "key in output: \(result.all)")
        #expect(!result.all.contains(token), "token in output")
        #expect(!result.all.contains("SIGNATURESECRET") && !result.all.contains("sig="), "signed query in output")
        #expect(!result.all.contains("RelSecretKey"), "part of the key in output")
    }
}
#endif

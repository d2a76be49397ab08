#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Testing
import Manashiki
import ManashikiRegistry

/// Broken answers from the registry's API, from a scripted origin (the development registry
/// cannot produce them). Covered elsewhere: field-by-field decoding errors of the SDK
/// (ManashikiTests WireDecodingTests, ErrorMappingTests).
@Suite("Reliability: registry answers")
struct RegistryAnswerTests {
    static let badCatalogs: [(String, [ScriptStep])] = [
        ("invalid JSON", ScriptedOrigin.json(#"{"models": [}"#)),
        ("truncated JSON", ScriptedOrigin.json(#"{"models": [{"modelId": "alpha", "vers"#)),
        ("a body cut short of its Content-Length", [.send(Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\nConnection: close\r\n\r\n{\"models\": [".utf8))]),
        ("an HTML page with status 200", [.send(ScriptedOrigin.response(200, headers: ["Content-Type: text/html"], body: Data("<html><body><h1>Sign in to the Wi-Fi</h1></body></html>".utf8)))]),
        ("models is not an array", ScriptedOrigin.json(#"{"models": {"alpha": 1}}"#)),
        ("an empty 200", [.send(ScriptedOrigin.response(200, body: Data()))]),
    ]

    @Test("a broken catalog answer fails the run with a clear error and changes nothing", arguments: 0..<6)
    func brokenCatalog(index: Int) async throws {
        let (label, steps) = Self.badCatalogs[index]
        let s = try ScriptedSync(prune: #"{"mode": "all", "maxDeletes": 10}"#)
        let result = try await s.expectRunFailureChangingNothing { request, _ in request.path == "/api/models" ? steps : nil }
        #expect(!result.stderr.isEmpty, "\(label)")
    }

    @Test("a huge catalog body: reading is capped, the run fails, the origin stops sending")
    func hugeCatalog() async throws {
        let s = try ScriptedSync()
        try await s.expectRunFailureChangingNothing { request, _ in
            guard request.path == "/api/models" else { return nil }
            return [.send(Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n{\"models\": [".utf8)),
                    .endless(chunk: Data(String(repeating: "{\"modelId\": \"x\"}, ", count: 4000).utf8), limit: 2 << 30)]
        }
        #expect(s.registry.origin.bytesSentByEndlessSteps < 256 << 20, "sent \(s.registry.origin.bytesSentByEndlessSteps)")
    }

    /// Catalog entries for beta that are wrong while alpha and gamma are fine.
    static let badEntries: [(String, String)] = [
        ("negative size", #"{"modelId": "beta", "version": "1.1.0", "size": -1, "sha256": "SHA"}"#),
        ("non-integer size", #"{"modelId": "beta", "version": "1.1.0", "size": 1.5, "sha256": "SHA"}"#),
        ("short sha256", #"{"modelId": "beta", "version": "1.1.0", "size": SIZE, "sha256": "abc123"}"#),
        ("non-hex sha256", #"{"modelId": "beta", "version": "1.1.0", "size": SIZE, "sha256": "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"}"#),
        ("uppercase sha256", #"{"modelId": "beta", "version": "1.1.0", "size": SIZE, "sha256": "UPPER"}"#),
        ("wrong types", #"{"modelId": "beta", "version": 1, "size": "SIZE", "sha256": 5}"#),
    ]

    @Test("a bad catalog entry (negative or fractional size, malformed sha256, wrong types): only beta is blocked, with a warning; alpha and gamma sync", arguments: 0..<6)
    func badCatalogEntry(index: Int) async throws {
        let (label, template) = Self.badEntries[index]
        let s = try ScriptedSync(prune: #"{"mode": "all", "maxDeletes": 10}"#)
        #expect(try await s.run().status == 0)
        let before = StoreSnapshot.capture(s.store)
        let earlierRequests = s.registry.requests.count
        s.publishNewVersions()
        s.registry.setOverride { request, registry in
            guard request.path == "/api/models" else { return nil }
            let beta = registry.model("beta")!
            let entry = template.replacingOccurrences(of: "SIZE", with: "\(beta.bytes.count)")
                .replacingOccurrences(of: "UPPER", with: beta.sha256.uppercased()).replacingOccurrences(of: "SHA", with: beta.sha256)
            let others = ["alpha", "gamma"].compactMap { registry.model($0) }.map {
                #"{"modelId": "\#($0.id)", "version": "\#($0.version)", "size": \#($0.bytes.count), "sha256": "\#($0.sha256)"}"#
            }
            return ScriptedOrigin.json(#"{"models": [\#((others + [entry]).joined(separator: ", "))]}"#)
        }
        let result = try await s.run()
        #expect(result.status == 3, "\(label): exit \(result.status): \(result.all)")
        #expect(result.stderrLines.contains { $0.hasPrefix("manashiki-sync: error: beta: not installed: ") && $0.contains("catalog entry for this model is invalid") },
                "\(label): \(result.stderr)")
        #expect(result.stderrLines.contains { $0.hasPrefix("manashiki-sync: warning: ") && $0.contains("invalid entry, ignored: models[2] (beta)") },
                "\(label): \(result.stderr)")
        // beta keeps its verified file; alpha and gamma are replaced by their new versions
        Invariants.expectStandardOutcome(store: s.store, before: before, failed: ["beta"], synced: ["alpha": s.expected("alpha"), "gamma": s.expected("gamma")])
        #expect(!s.registry.requests.dropFirst(earlierRequests).contains { $0.path.hasSuffix("/beta") }, "\(label): beta was requested")
    }

    static let badTickets: [(String, String)] = [
        ("invalid JSON", #"{"downloadUrl": "#),
        ("an HTML page", "<html>oops</html>"),
        ("wrong types", #"{"downloadUrl": 5, "sha256": true, "size": "1", "version": 2}"#),
        ("negative size", #"{"downloadUrl": "URL", "sha256": "SHA", "size": -30000, "version": "1.1.0"}"#),
        ("non-integer size", #"{"downloadUrl": "URL", "sha256": "SHA", "size": 3.5, "version": "1.1.0"}"#),
        ("sha256 not 64 hex", #"{"downloadUrl": "URL", "sha256": "1234", "size": SIZE, "version": "1.1.0"}"#),
        ("a size that disagrees with the catalog", #"{"downloadUrl": "URL", "sha256": "SHA", "size": 999, "version": "1.1.0"}"#),
        ("a version that disagrees with /api/models/:id", #"{"downloadUrl": "URL", "sha256": "SHA", "size": SIZE, "version": "1.2.0"}"#),
    ]

    @Test("a broken /api/download answer for one model: that model fails, the others sync", arguments: 0..<8)
    func brokenTicket(index: Int) async throws {
        let (_, template) = Self.badTickets[index]
        let s = try ScriptedSync()
        try await s.expectIsolatedFailure { request, registry in
            guard request.path == "/api/download/beta", let beta = registry.model("beta") else { return nil }
            let text = template.replacingOccurrences(of: "URL", with: registry.blobURL("beta")).replacingOccurrences(of: "SHA", with: beta.sha256)
                .replacingOccurrences(of: "SIZE", with: "\(beta.bytes.count)")
            return ScriptedOrigin.json(text)
        }
    }

    @Test("a catalog version older than the installed one is refused (rollback) unless the manifest pins it")
    func rollback() async throws {
        let f = try SyncFixture()
        try f.publishNewVersion("beta", version: "2.0.0", seed: 500)
        let before = try await f.syncOnce()
        try f.publishNewVersion("beta", version: "1.5.0", seed: 501)   // the registry rolls back
        let refused = try await f.run(["sync"])
        // Refused: beta keeps 2.0.0 (same file), with a warning naming it and what to do.
        #expect(refused.status == 0, "\(refused.all)")
        #expect(refused.stderrLines.contains { $0.contains("beta") && $0.contains("rollback refused") && $0.contains("pin") }, "\(refused.stderr)")
        Invariants.expectStandardOutcome(store: f.store, before: before, failed: ["beta"], synced: ["alpha": f.expected("alpha"), "gamma": f.expected("gamma")])
        // Pinning exactly 1.5.0 allows it.
        try f.writeManifest(models: ["alpha", "gamma"], extraEntries: [#"{"id": "beta", "version": "1.5.0"}"#])
        let pinned = try await f.run(["sync"])
        #expect(pinned.status == 0, "\(pinned.all)")
        #expect(f.isInstalledIntact("beta"))
    }
}
#endif

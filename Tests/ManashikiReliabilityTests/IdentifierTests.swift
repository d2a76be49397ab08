#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
import Manashiki
import ManashikiTestSupport
import ManashikiCore

/// Hostile model ids, rejected before any file-system access or request. Covered elsewhere:
/// the id grammar itself (ManashikiTests ModelIDTests) and manifest validation messages
/// (ManashikiSyncTests ManifestValidationTests).
@Suite("Reliability: identifiers")
struct IdentifierTests {
    static let hostile: [String] = [
        "..", "../x", "a/b", "/etc/x", "a\\b", "a\u{0}b", "", String(repeating: "a", count: 129),
        "a\u{FF0F}b",        // full-width solidus
        "a\u{202E}nib.exe",  // right-to-left override
        "a\u{200B}b",        // zero-width space
        "\u{0430}lpha",      // Cyrillic a
        "Alpha", "ALPHA",    // case twins of alpha
        ".hidden", "x..y", "a.", "-a", "con/../x", "%2e%2e", "a b", "a\nb",
    ]

    static func jsonString(_ s: String) -> String {
        String(decoding: try! JSONEncoder().encode(s), as: UTF8.self)
    }

    @Test("the SDK rejects each hostile id with invalidModelId, before any request and before creating the store", arguments: 0..<22)
    func sdk(index: Int) async throws {
        let id = Self.hostile[index]
        let scratch = ScratchDirectory("manashiki-rel")
        let store = scratch.url.appendingPathComponent("store")
        let sent = Locked(0)
        let transport = MockTransport { _ in sent.withLock { $0 += 1 }; return .json(200, "{}") }
        let client = try ManashikiClient(apiKey: Keys.publishable, baseURL: URL(string: "http://127.0.0.1:9")!, transport: transport, storageDirectory: store)
        await #expect(throws: APIError.invalidModelId(id)) { _ = try await client.downloadModel(id) }
        await #expect(throws: APIError.invalidModelId(id)) { _ = try await client.getModel(id) }
        #expect(sent.current == 0)
        #expect(!FileManager.default.fileExists(atPath: store.path))
    }

    @Test("a manifest with a hostile id is rejected (exit 2) before any request or file-system change", arguments: 0..<22)
    func manifest(index: Int) async throws {
        let f = try SyncFixture()
        try f.writeManifest(models: ["alpha"], extraEntries: [#"{"id": \#(Self.jsonString(Self.hostile[index]))}"#])
        let result = try await f.run()
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains("models[1].id"), "\(result.stderr)")
        #expect(f.registry.requestLog().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: f.store.path))
    }

    @Test("hostile ids in the catalog answer are never used as paths; the valid model still syncs")
    func catalog() async throws {
        let s = try ScriptedSync(prune: #"{"mode": "all", "maxDeletes": 50}"#)
        try s.writeManifest(models: ["alpha"], prune: #"{"mode": "all", "maxDeletes": 50}"#)
        let outside = s.scratch.file("x.bin")
        #expect(try await s.run().status == 0)
        let before = StoreSnapshot.capture(s.store)
        s.registry.setOverride { request, registry in
            let alpha = registry.model("alpha")!
            if request.path == "/api/models" {
                let entries = Self.hostile.map {
                    #"{"modelId": \#(Self.jsonString($0)), "version": "1.0.0", "size": 10, "sha256": "\#(alpha.sha256)"}"#
                } + [#"{"modelId": "alpha", "version": "1.0.0", "size": \#(alpha.bytes.count), "sha256": "\#(alpha.sha256)"}"#]
                return ScriptedOrigin.json(#"{"models": [\#(entries.joined(separator: ", "))]}"#)
            }
            return nil
        }
        let result = try await s.run()
        // The bad entries are ignored with a warning each (no manifest entry asks for them);
        // no hostile id reaches the file system and nothing is lost.
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stderr.contains("invalid entry, ignored: models[0] has an invalid modelId"), "\(result.stderr)")
        Invariants.expectStandardOutcome(store: s.store, before: before, failed: [], synced: ["alpha": s.expected("alpha")])
        #expect(!FileManager.default.fileExists(atPath: outside.path))
        #expect(Invariants.strays(s.store, allowed: ["alpha.bin"]).isEmpty, "\(Invariants.strays(s.store, allowed: ["alpha.bin"]))")
        #expect(!s.registry.requests.contains { $0.path.hasPrefix("/api/download/") && $0.path != "/api/download/alpha" })
        #expect(!s.registry.requests.contains { $0.path.hasPrefix("/api/models/") && $0.path != "/api/models/alpha" })
    }
}
#endif

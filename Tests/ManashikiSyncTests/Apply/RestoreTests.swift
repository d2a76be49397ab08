import Testing
import Foundation
import Manashiki
import ManashikiTestSupport
@testable import ManashikiSync
import ManashikiCore

@Suite("Restore after reinstall")
struct RestoreTests {
    @Test("an empty store after a reinstall is restored completely")
    func emptyStore() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        registry.publish("b", "3.2.0")
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "a"), ModelSpec(id: "b")]).run()
        #expect(report.outcome == .changed)
        #expect(store.contents("a") == "a 1.0.0 weights")
        #expect(store.contents("b") == "b 3.2.0 weights")
    }

    @Test("a store from a backup without state: intact files are adopted, damaged ones replaced, missing ones fetched")
    func backupRepair() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("intact", "1.0.0")
        registry.publish("truncated", "1.0.0")
        registry.publish("garbled", "1.0.0")
        registry.publish("missing", "1.0.0")
        store.write("intact", "intact 1.0.0 weights")
        store.write("truncated", "trunc")
        store.write("garbled", "garbled 1.0.0 WEIGHTS")
        let specs = ["intact", "truncated", "garbled", "missing"].map { ModelSpec(id: $0) }
        let report = await Fixture.reconciler(store, registry, specs).run()
        #expect(report.outcome == .changed)
        #expect(report["intact"]?.status == .verified(version: "1.0.0"))
        #expect(report["truncated"]?.status == .replaced(from: nil, to: "1.0.0"))
        #expect(report["garbled"]?.status == .replaced(from: nil, to: "1.0.0"))
        #expect(report["missing"]?.status == .installed(version: "1.0.0"))
        #expect(registry.calls("download").sorted() == ["download garbled", "download missing", "download truncated"])
        // Only files of a plausible size were hashed: intact and garbled, not the truncated one.
        #expect(report.bytesHashed == Int64("intact 1.0.0 weights".utf8.count + "garbled 1.0.0 WEIGHTS".utf8.count))
        #expect(store.readState()?.models.count == 4)
        // And the next launch is a no-op.
        let again = await Fixture.reconciler(store, registry, specs).run()
        #expect(again.outcome == .inSync)
        #expect(again.bytesHashed == 0)
    }

    @Test("ModelSync.restore drives the real SDK client: one call fills an empty store, the next is a no-op")
    func oneCall() async throws {
        let store = TestStore()
        let bundle = store.url.appendingPathComponent("bundle", isDirectory: true)
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let manifestURL = bundle.appendingPathComponent("models.json")
        try Data(#"{"schemaVersion": 1, "models": [{"id": "whisper-ja", "version": "^1.4"}]}"#.utf8).write(to: manifestURL)
        let artifact = Data("whisper weights".utf8)
        let mock = Self.whisperRegistry(serving: artifact)
        let models = store.url.appendingPathComponent("models")
        let options = Reconciler.Options(lockTimeout: .seconds(10), sleep: Fixture.lockPollSleep, device: Fixture.linux, freeSpace: { _ in 1 << 30 })
        let report = try await ModelSync.restore(manifestURL: manifestURL, apiKey: "mk_pub_acme_0123456789abcdefghij",
                                                 storeDirectory: models, transport: mock, options: options)
        #expect(report.outcome == .changed, "\(report.summary)")
        #expect(try Data(contentsOf: models.appendingPathComponent("whisper-ja.bin")) == artifact)
        #expect(mock.requests.count == 4)

        let again = try await ModelSync.restore(manifestURL: manifestURL, apiKey: "mk_pub_acme_0123456789abcdefghij",
                                                storeDirectory: models, transport: mock, options: options)
        #expect(again.outcome == .inSync)
        #expect(mock.requests.count == 5)
        await #expect(throws: APIError.invalidAPIKey) {
            _ = try await ModelSync.restore(manifestURL: manifestURL, apiKey: "not-a-key", transport: mock)
        }
    }

    /// The registry (catalog, record, download URL) and CDN for one model, whisper-ja 1.4.2
    /// with `artifact` as its bytes; `extra` is asked first (a signature host), nil leaving the
    /// request to these routes (anything else: 404).
    static func whisperRegistry(serving artifact: Data,
                                extra: @escaping @Sendable (HTTPRequest) -> MockResponse? = { _ in nil }) -> MockTransport {
        let sha = SHA256Hasher.hash(artifact).hex
        let entry = #"{"modelId": "whisper-ja", "version": "1.4.2", "size": \#(artifact.count), "sha256": "\#(sha)"}"#
        return MockTransport { request in
            if let reply = extra(request) { return reply }
            switch (request.url.host ?? "", request.url.path) {
            case ("models.manashiki.com", "/api/models"): return .json(200, #"{"models": [\#(entry)]}"#)
            case ("models.manashiki.com", "/api/models/whisper-ja"):
                return .json(200, #"{"modelId": "whisper-ja", "version": "1.4.2", "size": \#(artifact.count), "sha256": "\#(sha)", "compatibility": {"platforms": ["linux", "ios", "macos"]}, "lifecycle": {"status": "production"}, "visibility": "public"}"#)
            case ("models.manashiki.com", "/api/download/whisper-ja"):
                return .json(200, #"{"downloadUrl": "https://cdn.example.test/blob", "sha256": "\#(sha)", "size": \#(artifact.count), "expiresIn": 300, "version": "1.4.2"}"#)
            case ("cdn.example.test", "/blob"): return .bytes(artifact)
            default: return .error(404, code: "not_found")
            }
        }
    }
}

import Testing
import Foundation
import ManashikiTestSupport
import Manashiki
@testable import ManashikiSync

@Suite("Manifest decoding")
struct ManifestTests {
    static let full = #"""
    {
      "schemaVersion": 1,
      "registry": {"baseURL": "https://models.example.com", "apiKey": {"file": "secrets/key"}},
      "store": {"directory": "models", "concurrency": 3, "prune": {"mode": "all", "maxDeletes": 2, "allowEmptyManifest": true}},
      "device": {"platform": "ios", "osVersion": "17.2", "memoryMB": 6144, "diskMB": 20000},
      "policies": {"lifecycle": ["production"], "checkCompatibility": false, "retry": {"maxAttempts": 2, "maxRetryAfterSeconds": 5}, "downloadTimeoutSeconds": 900, "maxBytesPerSecond": 20971520},
      "metrics": {"file": "metrics/sync.prom"},
      "models": [
        {"id": "whisper-ja", "version": "^1.4", "platforms": ["ios", "macos"]},
        {"id": "lora-x", "version": "2.0.0", "sha256": "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
         "session": {"mint": {"principalId": "fleet", "ttlSec": 600}}},
        {"id": "vad", "session": {"command": ["/usr/bin/printf", "tok"]}}
      ]
    }
    """#

    @Test("a full manifest decodes every field")
    func decodesEverything() throws {
        let m = try Manifest.decode(Data(Self.full.utf8))
        #expect(m.registry.baseURL.absoluteString == "https://models.example.com")
        #expect(m.registry.apiKey == .file("secrets/key"))
        #expect(m.store.directory == "models")
        #expect(m.store.concurrency == 3)
        #expect(m.store.prune == PrunePolicy(mode: .all, maxDeletes: 2, allowEmptyManifest: true))
        #expect(m.device == DeviceProfile(platform: .ios, osVersion: "17.2", memoryMB: 6144, diskMB: 20000))
        #expect(m.policies == SyncPolicies(allowedStatuses: [.production], checkCompatibility: false, maxAttempts: 2, maxRetryAfterSeconds: 5,
                                             downloadTimeoutSeconds: 900, maxBytesPerSecond: 20 << 20))
        #expect(m.metrics == MetricsSettings(file: "metrics/sync.prom"))
        #expect(m.models.map(\.id) == ["whisper-ja", "lora-x", "vad"])
        #expect(m.models[0].version == .caret(ModelVersion("1.4")!))
        #expect(m.models[0].platforms == [.ios, .macos])
        #expect(m.models[1].sha256?.hasPrefix("9f86") == true)
        #expect(m.models[1].session == .mint(principalId: "fleet", ttlSec: 600))
        #expect(m.models[2].version == .latest)
        #expect(m.models[2].session == .command(["/usr/bin/printf", "tok"]))
    }

    @Test("a minimal manifest gets the documented defaults")
    func defaults() throws {
        let m = try Manifest.decode(Data(#"{"schemaVersion": 1, "models": [{"id": "a"}]}"#.utf8))
        #expect(m.registry.baseURL == ManashikiClient.defaultBaseURL)
        #expect(m.registry.apiKey == .environment("MANASHIKI_API_KEY"))
        #expect(m.store.concurrency == 4)
        #expect(m.store.prune == PrunePolicy(mode: .tracked, maxDeletes: 10, allowEmptyManifest: false))
        #expect(m.policies.allowedStatuses == [.production, .deprecated])
        #expect(m.policies.checkCompatibility)
        #expect(m.device == nil)
        #expect(m.storeDirectory == ManashikiClient.defaultStorageDirectory)
    }

    @Test("a relative store directory resolves against the manifest's directory")
    func relativeStore() throws {
        let scratch = ScratchDirectory("mf")
        let dir = scratch.url
        let file = dir.appendingPathComponent("models.json")
        try Data(#"{"schemaVersion": 1, "store": {"directory": "../store/models"}, "models": []}"#.utf8).write(to: file)
        let m = try Manifest.load(contentsOf: file)
        #expect(m.storeDirectory == dir.deletingLastPathComponent().appendingPathComponent("store/models").standardizedFileURL)
    }

    @Test("JSONDecoder decodes a manifest directly")
    func jsonDecoder() throws {
        let m = try JSONDecoder().decode(Manifest.self, from: Data(#"{"schemaVersion": 1, "models": []}"#.utf8))
        #expect(m.models.isEmpty)
    }
}

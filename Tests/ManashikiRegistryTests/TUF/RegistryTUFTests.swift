#if os(Linux) || os(macOS) // python-tuf runs as a child process (ManashikiProcess: Linux and macOS)
import Foundation
import Manashiki
import ManashikiCore
import ManashikiRegistry
import ManashikiTestSupport
import Testing

/// `serve --tuf DIR`: the development registry's signed metadata, read by python-tuf's own
/// client (`tuf.ngclient.Updater`, the independent verifier) and by this package's client, over
/// loopback HTTP.
@Suite("development registry: TUF metadata (python-tuf's client, this package's client)", .requires(.pythonTUF, .pythonCryptography))
struct RegistryTUFTests {
    let scratch = ScratchDirectory("registry-tuf")
    var keys: URL { scratch.url.appendingPathComponent("tuf", isDirectory: true) }

    func start() throws -> DevelopmentRegistry {
        var configuration = RegistryConfiguration()
        configuration.tufDirectory = keys
        return try Fixture.start(configuration: configuration)
    }

    /// python-tuf's `Updater` refreshes from `url` with the trusted metadata in `directory`
    /// and prints the target at `path`: `{"length", "sha256", "timestamp"}`.
    static let client = #"""
import json, sys
from tuf.ngclient import Updater
directory, url, path = sys.argv[1:4]
updater = Updater(metadata_dir=directory, metadata_base_url=url, bootstrap=None)  # None: directory/root.json
try:
    updater.refresh()
except Exception as e:  # the refusal's class, e.g. BadVersionNumberError
    print(json.dumps({"error": type(e).__name__}))
    sys.exit(0)
info = updater.get_targetinfo(path)
print(json.dumps({"length": info.length if info else None, "sha256": info.hashes.get("sha256") if info else None,
                  "timestamp": updater._trusted_set.timestamp.version}))
"""#

    /// python-tuf's metadata directory (`scratch/python`), holding the registry's root to start from.
    func pinPythonClient() throws {
        let python = scratch.file("python")
        try FileManager.default.createDirectory(at: python, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: keys.appendingPathComponent("root.json"), to: python.appendingPathComponent("root.json"))
    }

    func pythonClient(_ registry: DevelopmentRegistry, _ path: String) throws -> [String: Any] {
        let script = scratch.file("client.py")
        try Data(Self.client.utf8).write(to: script)
        let result = RunningChild.run(try Peer.python3.require(),
                                      [script.path, scratch.file("python").path, registry.apiBaseURL.absoluteString + "/tuf/metadata/", path],
                                      environment: Peer.environment, path: Peer.searchPath, in: scratch.url)
        #expect(result.status == 0, "\(result.all)")
        return (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]) ?? [:]
    }

    @Test("python-tuf's client verifies every served version; a publish makes newer signed versions of targets, snapshot and timestamp")
    func pythonTUFVerifies() async throws {
        let registry = try start()
        defer { registry.stop() }
        try pinPythonClient()
        let tiny = try pythonClient(registry, "models/tiny/1.0.0.bin")
        #expect(tiny["length"] as? Int == 64 << 10 && tiny["sha256"] as? String == registry.sha256(modelId: Fixture.tiny))
        let first = try #require(tiny["timestamp"] as? Int)

        try registry.publish(modelId: Fixture.tiny, version: "1.1.0", artifact: .generated(size: 2048, seed: 77))
        let newer = try pythonClient(registry, "models/tiny/1.1.0.bin")
        #expect(newer["length"] as? Int == 2048 && newer["sha256"] as? String == registry.sha256(modelId: Fixture.tiny) && (newer["timestamp"] as? Int ?? 0) > first)
        let older = try pythonClient(registry, "models/tiny/1.0.0.bin")
        #expect(older["length"] as? Int == 64 << 10, "earlier versions stay signed")
        #expect(try pythonClient(registry, "models/tiny/9.9.9.bin")["length"] is NSNull)
    }

    @Test("python-tuf's client refuses each TUF fault of the registry (rollback, expiry, wrong key, changed after signing), then takes the metadata served after it")
    func pythonTUFRefusesFaults() async throws {
        let registry = try start()
        defer { registry.stop() }
        try pinPythonClient()
        #expect(try pythonClient(registry, "models/tiny/1.0.0.bin")["length"] as? Int == 64 << 10)
        let expected: [(RegistryFault, String)] = [
            (.tufRollback(.timestamp), "BadVersionNumberError"), (.tufRollback(.snapshot), "BadVersionNumberError"),
            (.tufRollback(.targets), "BadVersionNumberError"), (.tufExpired(.timestamp), "ExpiredMetadataError"),
            (.tufExpired(.snapshot), "ExpiredMetadataError"), (.tufMisSigned(.snapshot), "UnsignedMetadataError"),
            (.tufMisSigned(.targets, modifiedAfterSigning: true), "UnsignedMetadataError"),
        ]
        for (fault, error) in expected {
            registry.setFault(RegistryFault(fault.kind, count: 1), endpoint: .tufMetadata)
            #expect(try pythonClient(registry, "models/tiny/1.0.0.bin")["error"] as? String == error, "\(fault.kind)")
        }
        #expect(registry.faults.isEmpty, "each fault fired once (on timestamp.json) and was used up")
        // What is served after the faults is newer than anything python-tuf kept from them (the
        // expired timestamp it stored as its rollback baseline included).
        #expect(try pythonClient(registry, "models/tiny/1.0.0.bin")["length"] as? Int == 64 << 10)
    }

    @Test("this package's client verifies the same metadata; a restart with the same directory keeps the keys and the pinned root")
    func ownClientAndRestart() async throws {
        let first = try start()
        let root = try Data(contentsOf: keys.appendingPathComponent("root.json"))
        let seeds = try ["root", "targets", "snapshot", "timestamp"].map { try String(contentsOf: keys.appendingPathComponent("\($0).key"), encoding: .utf8) }
        let attributes = try FileManager.default.attributesOfItem(atPath: keys.appendingPathComponent("targets.key").path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "a key is readable by its owner only")
        let store = TUFMetadataStore(directory: scratch.file("client"))
        func updater(_ registry: DevelopmentRegistry) -> TUFUpdater {
            TUFUpdater(anchor: root, store: store, source: TUFHTTPSource(baseURL: registry.apiBaseURL.appendingPathComponent("tuf/metadata")), now: Date())
        }
        let target = try await updater(first).target("models/tiny/1.0.0.bin")
        #expect(target.length == 64 << 10 && target.sha256 == first.sha256(modelId: Fixture.tiny))
        first.stop()

        let second = try start()
        defer { second.stop() }
        #expect(try Data(contentsOf: keys.appendingPathComponent("root.json")) == root)
        #expect(try ["root", "targets", "snapshot", "timestamp"].map { try String(contentsOf: keys.appendingPathComponent("\($0).key"), encoding: .utf8) } == seeds)
        try second.publish(modelId: Fixture.tiny, version: "2.0.0", artifact: .generated(size: 4096, seed: 78))
        // The store trusts the first run's versions; the second run's are newer (they grow across
        // restarts), verified with the same keys.
        let newer = try await updater(second).target("models/tiny/2.0.0.bin")
        #expect(newer.length == 4096 && newer.sha256 == second.sha256(modelId: Fixture.tiny))
    }

    @Test("without --tuf there is no metadata (404), and the metadata needs no API key")
    func endpoints() async throws {
        let plain = try Fixture.start()
        defer { plain.stop() }
        let (status, _) = try await Self.get(plain.apiBaseURL.absoluteString + "/tuf/metadata/timestamp.json")
        #expect(status == 404)
        let registry = try start()
        defer { registry.stop() }
        for name in ["1.root.json", "timestamp.json", "snapshot.json", "targets.json"] {
            let (code, body) = try await Self.get(registry.apiBaseURL.absoluteString + "/tuf/metadata/" + name)
            #expect(code == 200 && (try? JSONSerialization.jsonObject(with: body)) != nil, "\(name)")
        }
        #expect(try await Self.get(registry.apiBaseURL.absoluteString + "/tuf/metadata/2.root.json").0 == 404)
    }

    static func get(_ url: String) async throws -> (Int, Data) {
        let response = try await HTTPClient.fetch(try #require(URL(string: url)))
        return (response.status, response.body)
    }
}
#endif

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiRegistry
import ManashikiTestSupport
import Testing

/// The quick start's signed sync: the development registry started with `--tuf DIR` signs its
/// catalog, and the built `manashiki-sync` with `trust.tuf` (its metadata URL, `DIR/root.json`
/// pinned) installs only what it signed.
@Suite("signed sync against the development registry (--tuf)")
struct RegistrySignedSyncTests {
    @Test("a sync with trust.tuf installs the registry's signed models; a new version is signed and replaces; status shows the trusted roles")
    func signedSync() async throws {
        let scratch = ScratchDirectory("registry-signed")
        var configuration = RegistryConfiguration()
        configuration.tufDirectory = scratch.url
        let fixture = try Fixture(models: ["alpha", "beta"], configuration: configuration)
        var text = try String(contentsOf: fixture.manifestURL, encoding: .utf8)
        let trust = #""trust": {"tuf": {"metadataURL": "\#(fixture.registry.apiBaseURL.absoluteString)/tuf/metadata/", "root": {"file": "\#(scratch.url.path)/root.json"}}},"#
        text = text.replacingOccurrences(of: #"{"schemaVersion": 1,"#, with: #"{"schemaVersion": 1, "# + trust)
        try Data(text.utf8).write(to: fixture.manifestURL)

        let first = try await fixture.run(["sync", "--json"])
        #expect(first.status == 0, "\(first.all)")
        #expect(fixture.isInstalledIntact("alpha") && fixture.isInstalledIntact("beta"))
        let evidence = try #require((first.summaryModel("alpha")?["trust"] as? [[String: Any]])?.first)
        #expect(evidence["mechanism"] as? String == "tuf" && (evidence["facts"] as? [String: Any])?["target"] as? String == "models/alpha/1.0.0.bin")

        try fixture.registry.publish(modelId: "alpha", version: "1.1.0", artifact: .generated(size: 32 << 10, seed: 111))
        let second = try await fixture.run(["sync", "--json"])
        #expect(second.status == 0, "\(second.all)")
        #expect(second.summaryModel("alpha")?["status"] as? String == "replaced" && fixture.isInstalledIntact("alpha"))
        let status = try await fixture.run(["status", "--json"])
        let roles = try #require((status.summary()["tuf"] as? [String: Any])?["roles"] as? [[String: Any]], "\(status.stdout)")
        #expect(roles.compactMap { $0["role"] as? String } == ["root", "timestamp", "snapshot", "targets"])
    }
}
#endif

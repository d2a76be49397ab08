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
    /// A fixture whose registry signs its catalog (`--tuf`) and whose manifest pins its root.
    static func signedFixture(_ scratch: ScratchDirectory) throws -> Fixture {
        var configuration = RegistryConfiguration()
        configuration.tufDirectory = scratch.url
        let fixture = try Fixture(models: ["alpha", "beta"], configuration: configuration)
        var text = try String(contentsOf: fixture.manifestURL, encoding: .utf8)
        let trust = #""trust": {"tuf": {"metadataURL": "\#(fixture.registry.apiBaseURL.absoluteString)/tuf/metadata/", "root": {"file": "\#(scratch.url.path)/root.json"}}},"#
        text = text.replacingOccurrences(of: #"{"schemaVersion": 1,"#, with: #"{"schemaVersion": 1, "# + trust)
        try Data(text.utf8).write(to: fixture.manifestURL)
        return fixture
    }

    /// One TUF fault of the registry and the refusal `sync --json` must report for it
    /// (`trustRefusal`'s reason, role and the TUF client's problem code).
    struct FaultCase: CustomTestStringConvertible, Sendable {
        let name: String
        let fault: RegistryFault
        let reason: String
        let role: String
        let problem: String
        var testDescription: String { name }
    }

    static let faults: [FaultCase] = [
        FaultCase(name: "a rolled-back timestamp", fault: .tufRollback(.timestamp), reason: "metadata", role: "timestamp", problem: "rollback"),
        FaultCase(name: "a rolled-back snapshot", fault: .tufRollback(.snapshot), reason: "metadata", role: "snapshot", problem: "rollback"),
        FaultCase(name: "an expired timestamp", fault: .tufExpired(.timestamp), reason: "expired", role: "timestamp", problem: "expired"),
        FaultCase(name: "a snapshot signed by a wrong key", fault: .tufMisSigned(.snapshot), reason: "metadata", role: "snapshot", problem: "threshold"),
        FaultCase(name: "a snapshot changed after signing", fault: .tufMisSigned(.snapshot, modifiedAfterSigning: true),
                  reason: "metadata", role: "snapshot", problem: "threshold"),
    ]

    @Test("a registry TUF fault refuses the new version with its reason, role and problem; the installed file stays; cleared, the next run installs",
          arguments: faults)
    func registryFault(_ c: FaultCase) async throws {
        let scratch = ScratchDirectory("registry-tuf-fault")
        let fixture = try Self.signedFixture(scratch)
        let first = try await fixture.run(["sync", "--json"])
        try #require(first.status == 0, "\(first.all)")
        let installed = try #require(fixture.installed("alpha"))

        try fixture.registry.publish(modelId: "alpha", version: "1.1.0", artifact: .generated(size: 32 << 10, seed: 111))
        fixture.registry.setFault(c.fault, endpoint: .tufMetadata)
        let refused = try await fixture.run(["sync", "--json"])
        #expect(refused.status != 0, "\(refused.all)")
        let model = try #require(refused.summaryModel("alpha"), "\(refused.stdout)")
        let refusal = try #require(model["trustRefusal"] as? [String: Any], "\(refused.stdout)")
        #expect(refusal["mechanism"] as? String == "tuf" && refusal["reason"] as? String == c.reason
                && refusal["role"] as? String == c.role && refusal["problem"] as? String == c.problem, "\(refusal)")
        #expect(model["status"] as? String == "failed" && (model["error"] as? [String: Any])?["kind"] as? String == "terminal")
        #expect(fixture.installed("alpha") == installed, "the installed 1.0.0 stays, nothing else is installed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.store.path).sorted() == [".manashiki", "alpha.bin", "beta.bin"])

        fixture.registry.clearFaults()
        let next = try await fixture.run(["sync", "--json"])
        #expect(next.status == 0, "\(next.all)")
        #expect(next.summaryModel("alpha")?["status"] as? String == "replaced" && fixture.isInstalledIntact("alpha"))
    }

    @Test("a sync with trust.tuf installs the registry's signed models; a new version is signed and replaces; status shows the trusted roles")
    func signedSync() async throws {
        let scratch = ScratchDirectory("registry-signed")
        let fixture = try Self.signedFixture(scratch)

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

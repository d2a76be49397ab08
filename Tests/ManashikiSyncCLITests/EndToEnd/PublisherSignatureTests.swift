#if os(Linux) || os(macOS)
import Foundation
import ManashikiCore
import ManashikiTestSupport
import Manashiki
import Testing
import ManashikiSync

/// Publisher signatures through the built binary with real parts: a signature made by
/// `model_signing sign key` and served by nginx at `signatureURL`; `export` carries it to a
/// bundle (which upstream's `model_signing verify key` accepts), the same bundle served by nginx
/// as a mirror, and an OCI artifact in the distribution registry (by its tag, and by the
/// repository alone); a machine with only the key installs from each; another publisher's key
/// installs nothing.
@Suite("Publisher signatures end to end (model_signing, nginx, docker-registry, built binary)",
       .requires(.openssl, .modelSigning, .pyOpenSSL, .nginx, .dockerRegistry, .htpasswd))
struct PublisherSignatureTests {
    /// A machine with only the pinned key (no signatureURL), syncing alpha from `sources` and
    /// never from the registry's storage.
    static func keyOnly(_ fixture: Fixture, _ name: String, key: URL, sources: String, ca: URL? = nil) throws -> URL {
        try OCIRegistryTests.machine(fixture, name, models: ["alpha"], sources: sources, ca: ca,
                                     extra: #""fallback": "none", "trust": {"modelSigning": {"keys": [{"file": "\#(key.path)"}]}},"#)
    }

    /// The `alpha` result of a `sync --json`, expecting it installed and signed by `fingerprint`
    /// with a signature found at a place starting with `origin`.
    static func expectSigned(_ sync: ChildResult, fingerprint: String, origin: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sync.status == 0, "\(sync.all)", sourceLocation: sourceLocation)
        let alpha = sync.summaryModel("alpha") ?? [:]
        #expect(alpha["status"] as? String == "installed", "\(alpha)", sourceLocation: sourceLocation)
        #expect((alpha["signer"] as? [String: Any])?["keyFingerprint"] as? String == fingerprint, "\(alpha)", sourceLocation: sourceLocation)
        let facts = ((alpha["trust"] as? [[String: Any]])?.first?["facts"] as? [String: String]) ?? [:]
        #expect(facts["origin"]?.hasPrefix(origin) == true, "\(facts)", sourceLocation: sourceLocation)
    }

    @Test("signed at signatureURL, exported with its signature: bundle, nginx mirror and OCI registry (tagged and untagged) each install it; upstream verifies the export; another key installs nothing")
    func everySource() async throws {
        let fixture = try Fixture(models: ["alpha"])
        let kit = try PublisherSigningKit.make()
        let (privateKey, publicKey) = try await kit.key("publisher")
        let fingerprint = try PublisherKey(contentsOf: publicKey).fingerprint
        let site = fixture.directory.appendingPathComponent("site", isDirectory: true)
        let sigDir = site.appendingPathComponent("sigs/alpha/1.0.0", isDirectory: true)
        try FileManager.default.createDirectory(at: sigDir, withIntermediateDirectories: true)
        let model = kit.file("alpha.bin")
        try fixture.expected("alpha").write(to: model)
        try await kit.signWithKey(model, privateKey: privateKey, signature: sigDir.appendingPathComponent("model.sig"))
        let nginx = try await NginxMirror(root: site)

        // The origin machine: the signature from signatureURL; status says who signed.
        let origin = try OCIRegistryTests.machine(fixture, "origin", models: ["alpha"], sources: "[]", ca: nil, extra: """
            "trust": {"modelSigning": {"keys": [{"file": "\(publicKey.path)"}], "signatureURL": "\(nginx.baseURL)/sigs/{modelId}/{version}/model.sig"}},
            """)
        Self.expectSigned(try await CLIProcess.run(["sync", "--json"], environment: fixture.environment, in: origin),
                          fingerprint: fingerprint, origin: nginx.baseURL)
        let status = try await CLIProcess.run(["status"], environment: fixture.environment, in: origin)
        #expect(status.stdout.contains("Signed: alpha by key \(fingerprint)"), "\(status.all)")

        // verify re-checks the stored signature offline: intact and signed; with another key pinned, refused (exit 4).
        let verify = try await CLIProcess.run(["verify", "--json"], environment: [:], in: origin)
        #expect(verify.status == 0 && verify.stdout.contains("intact, signed by key \(fingerprint)"), "\(verify.all)")
        let (_, otherKey) = try await kit.key("other")
        let text = try String(contentsOf: origin.appendingPathComponent("manashiki.json"), encoding: .utf8)
        try Data(text.replacingOccurrences(of: publicKey.path, with: otherKey.path).utf8).write(to: origin.appendingPathComponent("other-key.json"))
        let reverify = try await CLIProcess.run(["verify", "-m", "other-key.json"], environment: [:], in: origin)
        #expect(reverify.status == 4 && reverify.stderr.contains("signature-refused") && reverify.stderr.contains("unknown-key"), "\(reverify.all)")

        // verify --repair: a stored signature gone is found again at signatureURL and kept (the
        // intact file is not fetched again); with another key pinned it stays refused (exit 4), the file stays.
        let stored = StoreLayout(directory: origin.appendingPathComponent("models")).signatureFile("alpha")
        let kept = try Data(contentsOf: stored)
        try FileManager.default.removeItem(at: stored)
        let repaired = try await CLIProcess.run(["verify", "--repair", "--json"], environment: fixture.environment, in: origin)
        #expect(repaired.status == 0 && repaired.summary()["repaired"] as? Int == 1, "\(repaired.all)")
        #expect(FileManager.default.contents(atPath: stored.path) == kept)
        let unrepaired = try await CLIProcess.run(["verify", "--repair", "-m", "other-key.json"], environment: fixture.environment, in: origin)
        #expect(unrepaired.status == 4 && unrepaired.stderr.contains("signature-refused") && unrepaired.stderr.contains("--repair looks for a signature"), "\(unrepaired.all)")
        #expect(OCIRegistryTests.installed(origin, "alpha") == fixture.expected("alpha"))

        // export carries it; upstream's verifier accepts the pair the bundle holds.
        let bundle = BundleLayout(directory: site.appendingPathComponent("bundle", isDirectory: true))
        let export = try await CLIProcess.run(["export", bundle.directory.path, "--quiet"], environment: [:], in: origin)
        #expect(export.status == 0, "\(export.all)")
        let entry = try #require(try BundleIndex.read(bundle).models.first)
        let signature = try #require(entry.signature)
        let check = kit.file("check")
        try FileManager.default.createDirectory(at: check, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: bundle.blob(entry.sha256), to: check.appendingPathComponent("alpha.bin"))
        let upstream = try await kit.verifyWithKey(check.appendingPathComponent("alpha.bin"), publicKey: publicKey, signature: bundle.blob(signature.sha256))
        #expect(upstream.succeeded, "\(upstream.output)")

        // A bundle, the same bundle served by nginx as a mirror: only the key pinned.
        Self.expectSigned(try await CLIProcess.run(["sync", "--json"], environment: fixture.environment,
                                                   in: try Self.keyOnly(fixture, "from-bundle", key: publicKey, sources: #"[{"bundle": "\#(bundle.directory.path)"}]"#)),
                          fingerprint: fingerprint, origin: "bundle")
        Self.expectSigned(try await CLIProcess.run(["sync", "--json"], environment: fixture.environment,
                                                   in: try Self.keyOnly(fixture, "from-mirror", key: publicKey, sources: #"[{"mirror": "\#(nginx.baseURL)/bundle/"}]"#)),
                          fingerprint: fingerprint, origin: "mirror")

        // An OCI artifact pushed by export, its signature a layer.
        let registry = try await DistributionRegistry.sharedBasic()
        let ca = try #require(registry.ca).certificate
        try OCIRegistryTests.authFile(origin.appendingPathComponent(".docker/config.json"), host: registry.host)
        let repo = OCIRegistryTests.repository("signed")
        let push = try await CLIProcess.run(["export", registry.reference(repo), "--ca-bundle", ca.path, "--quiet"], environment: [:], in: origin)
        #expect(push.status == 0, "\(push.all)")
        let fromOCI = try Self.keyOnly(fixture, "from-oci", key: publicKey,
                                       sources: #"[{"oci": "\#(registry.host)/\#(repo)", "tag": "v1", "credentials": {"file": "auth.json"}}]"#, ca: ca)
        try OCIRegistryTests.authFile(fromOCI.appendingPathComponent("auth.json"), host: registry.host)
        Self.expectSigned(try await CLIProcess.run(["sync", "--json"], environment: fixture.environment, in: fromOCI),
                          fingerprint: fingerprint, origin: "oci://")
        // The same repository without a tag: blobs by digest, the signature layer found through the repository's tags.
        let untagged = try Self.keyOnly(fixture, "from-oci-untagged", key: publicKey,
                                        sources: #"[{"oci": "\#(registry.host)/\#(repo)", "credentials": {"file": "auth.json"}}]"#, ca: ca)
        try OCIRegistryTests.authFile(untagged.appendingPathComponent("auth.json"), host: registry.host)
        Self.expectSigned(try await CLIProcess.run(["sync", "--json"], environment: fixture.environment, in: untagged),
                          fingerprint: fingerprint, origin: "oci://\(registry.host)/\(repo) (")

        // Another publisher's key: refused from the bundle, nothing installed, the reason in --json.
        let other = try Self.keyOnly(fixture, "other-key", key: otherKey, sources: #"[{"bundle": "\#(bundle.directory.path)"}]"#)
        let refused = try await CLIProcess.run(["sync", "--json"], environment: fixture.environment, in: other)
        #expect(refused.status != 0, "\(refused.all)")
        let refusal = refused.summaryModel("alpha")?["trustRefusal"] as? [String: Any]
        #expect(refusal?["mechanism"] as? String == "model-signing" && refusal?["reason"] as? String == "signature", "\(refused.all)")
        #expect(refusal?["problem"] as? String == "unknown-key", "\(refused.all)")
        #expect(refused.stderr.contains("alpha 1.0.0") && refused.stderr.contains("not pinned"), "\(refused.stderr)")
        #expect(OCIRegistryTests.installed(other, "alpha") == nil)
        await nginx.stop()
    }
}
#endif

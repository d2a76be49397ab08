#if os(Linux) || os(macOS) // model_signing and openssl run as child processes
import Foundation
import Manashiki
@testable import ManashikiSync
import ManashikiCore
import ManashikiTestSupport
import Testing

/// The run's trust chain (`SyncRun.makeTrust`) consulted before install, replace and keep, with
/// signatures made by upstream's `model_signing` and carried by a bundle beside the blob.
@Suite("Sync run: trust before install, replace and keep", .requires(.openssl, .modelSigning, .pyOpenSSL))
struct SyncRunTrustTests {
    let kit: PublisherSigningKit
    let store = TestStore()
    let bundle: BundleLayout
    let registry: FakeRegistry

    init() throws {
        kit = try PublisherSigningKit.make()
        bundle = BundleLayout(directory: kit.directory.appendingPathComponent("bundle", isDirectory: true))
        registry = FakeRegistry(storageDirectory: store.url)
    }

    /// Publishes `id` `version`, signs its bytes (as `<id>.bin`) with `privateKey`, and writes
    /// a bundle holding the blob and its signature.
    @discardableResult
    func publishSigned(_ id: String, _ version: String, privateKey: URL, signedName: String? = nil) async throws -> ModelEntry {
        let entry = registry.publish(id, version)
        let bytes = Data("\(id) \(version) weights".utf8)
        let file = kit.file(signedName ?? "\(id).bin")
        try bytes.write(to: file)
        let sigFile = kit.file("\(id)-\(version).sig")
        try await kit.signWithKey(file, privateKey: privateKey, signature: sigFile)
        try bundle(entry, bytes: bytes, signature: try Data(contentsOf: sigFile))
        return entry
    }

    /// Puts `entry`'s bytes in the bundle with `signature` as its `model.sig`.
    func bundle(_ entry: ModelEntry, bytes: Data, signature: Data) throws {
        let id = entry.modelId, version = entry.version
        try FileManager.default.createDirectory(at: bundle.blobDirectory, withIntermediateDirectories: true)
        try bytes.write(to: bundle.blob(entry.sha256))
        let sigSHA = SHA256Hasher.hash(signature).hex
        try signature.write(to: bundle.blob(sigSHA))
        let pinned = PinnedArtifact(modelId: id, version: version, size: Int64(bytes.count), sha256: entry.sha256,
                                    signature: SignatureReference(sha256: sigSHA, size: Int64(signature.count)))
        var models = (try? BundleIndex.read(bundle).models) ?? []
        models.removeAll { $0.modelId == id }
        try BundleIndex(models: models + [pinned]).encoded().write(to: bundle.indexFile)
    }

    func reconciler(_ models: [ModelSpec], keys publicKeys: [URL], roots: [URL] = []) -> Reconciler {
        var manifest = Fixture.manifest(store, models)
        manifest.sources = [ArtifactSource(.bundle(bundle.directory.path))]
        manifest.trust = TrustSettings(modelSigning: ModelSigningSettings(keys: publicKeys.map { .file($0.path) }, roots: roots.map { .file($0.path) }))
        return Reconciler(manifest: manifest, registry: registry, options: Fixture.options())
    }

    @Test("a signed model installs with its signer recorded; a kept model is re-checked from the store's copy")
    func installsAndKeeps() async throws {
        let (privateKey, publicKey) = try await kit.key("publisher")
        let pinned = try PublisherKey(contentsOf: publicKey)
        try await publishSigned("tiny", "1.0.0", privateKey: privateKey)
        let report = await reconciler([ModelSpec(id: "tiny")], keys: [publicKey]).run()
        #expect(report.results.map(\.status) == [.installed(version: "1.0.0")])
        #expect(report.results.first?.signer?.keyFingerprint == pinned.fingerprint)
        #expect(report.results.first?.trust?.first?.mechanism == "model-signing")
        let state = try #require(store.readState())
        let signer = try #require(state.models["tiny"]?.signer)
        #expect(signer.keyFingerprint == pinned.fingerprint)
        let kept = try Data(contentsOf: store.layout.signatureFile("tiny"))
        #expect(SHA256Hasher.hash(kept).hex == signer.signatureSHA256)

        // Kept: checked again with the store's copy, even with the bundle gone.
        try FileManager.default.removeItem(at: bundle.directory)
        let again = await reconciler([ModelSpec(id: "tiny")], keys: [publicKey]).run()
        #expect(again.results.map(\.status) == [.unchanged(version: "1.0.0")])
        #expect(again.results.first?.signer == signer)
        #expect(again.results.first?.trust?.first?.facts["origin"] == "store")
    }

    @Test("another publisher's key: refused before a byte, nothing installed; a kept model's key removed: failed, file stays")
    func refusals() async throws {
        let (privateKey, publicKey) = try await kit.key("publisher")
        let (_, otherPublic) = try await kit.key("other")
        try await publishSigned("tiny", "1.0.0", privateKey: privateKey)
        let refused = await reconciler([ModelSpec(id: "tiny")], keys: [otherPublic]).run()
        let failure = try #require(refused.results.first.flatMap { if case .failed(let f) = $0.status { f } else { nil } })
        #expect(failure.trust?.reasonCode == "signature")
        #expect(failure.trust?.problemCode == "unknown-key")
        #expect(failure.kind == .terminal)
        #expect(failure.message.contains("tiny 1.0.0"))
        #expect(failure.message.contains("bundle \(bundle.directory.path)"))
        #expect(!FileManager.default.fileExists(atPath: store.file("tiny").path))
        #expect(registry.calls("download").isEmpty)

        let installed = await reconciler([ModelSpec(id: "tiny")], keys: [publicKey]).run()
        #expect(installed.results.map(\.status) == [.installed(version: "1.0.0")])
        let kept = await reconciler([ModelSpec(id: "tiny")], keys: [otherPublic]).run()
        let keptFailure = try #require(kept.results.first.flatMap { if case .failed(let f) = $0.status { f } else { nil } })
        #expect(keptFailure.trust?.problemCode == "unknown-key")
        #expect(store.contents("tiny") == "tiny 1.0.0 weights")
    }

    @Test("repair with a signature finding: a stored signature gone is found again at the source and kept, the intact bytes not fetched again; with another key pinned it stays refused, the file stays, never healthy")
    func repairSignatures() async throws {
        let (privateKey, publicKey) = try await kit.key("publisher")
        let (_, otherPublic) = try await kit.key("other")
        try await publishSigned("tiny", "1.0.0", privateKey: privateKey)
        #expect(await reconciler([ModelSpec(id: "tiny")], keys: [publicKey]).run().results.map(\.status) == [.installed(version: "1.0.0")])
        let signature = try Data(contentsOf: store.layout.signatureFile("tiny"))

        // The store's copy deleted: unsigned before, found again in the bundle, verified after.
        try FileManager.default.removeItem(at: store.layout.signatureFile("tiny"))
        let repaired = await reconciler([ModelSpec(id: "tiny")], keys: [publicKey]).repair()
        #expect(repaired.signaturesBefore == ["tiny": .unsigned])
        #expect(repaired.sync?.results.map(\.status) == [.unchanged(version: "1.0.0")])
        if case .verified(let signer)? = repaired.signaturesAfter["tiny"] { #expect(signer.keyFingerprint == (try PublisherKey(contentsOf: publicKey)).fingerprint) } else {
            Issue.record("not verified after the repair: \(repaired.signaturesAfter)")
        }
        #expect(repaired.repaired == ["tiny"] && repaired.isHealthy)
        #expect(try Data(contentsOf: store.layout.signatureFile("tiny")) == signature)

        // Another publisher's key pinned: refused before and after (the bundle's signature is the
        // same one), the file stays, the repair is not healthy and repaired nothing.
        let refused = await reconciler([ModelSpec(id: "tiny")], keys: [otherPublic]).repair()
        for verdicts in [refused.signaturesBefore, refused.signaturesAfter] {
            if case .refused(let failure)? = verdicts["tiny"] { #expect(failure.problem.code == "unknown-key") } else { Issue.record("not refused: \(verdicts)") }
        }
        #expect(refused.repaired.isEmpty && !refused.isHealthy)
        #expect(refused.sync?.results.first.map { if case .failed = $0.status { true } else { false } } == true)
        #expect(store.contents("tiny") == "tiny 1.0.0 weights")
    }

    @Test("a replacement whose signature names another model is refused; the installed version stays")
    func replaceRefused() async throws {
        let (privateKey, publicKey) = try await kit.key("publisher")
        try await publishSigned("tiny", "1.0.0", privateKey: privateKey)
        #expect(await reconciler([ModelSpec(id: "tiny")], keys: [publicKey]).run().results.map(\.status) == [.installed(version: "1.0.0")])
        try await publishSigned("tiny", "1.1.0", privateKey: privateKey, signedName: "other.bin")
        let report = await reconciler([ModelSpec(id: "tiny")], keys: [publicKey]).run()
        let failure = try #require(report.results.first.flatMap { if case .failed(let f) = $0.status { f } else { nil } })
        #expect(failure.trust?.problemCode == "subject-name")
        #expect(store.contents("tiny") == "tiny 1.0.0 weights")
        #expect(store.readState()?.models["tiny"]?.version == "1.0.0")
    }

    /// `signature` with one byte of its signed statement flipped.
    static func flipped(_ signature: Data) throws -> Data {
        guard case .object(var top) = try JSONValue.parse(signature), case .object(var envelope)? = top["dsseEnvelope"],
              case .string(let payload)? = envelope["payload"], var bytes = Data(base64Encoded: payload) else { throw CocoaError(.coderInvalidValue) }
        bytes[bytes.count / 2] ^= 0x01
        envelope["payload"] = .string(bytes.base64EncodedString())
        top["dsseEnvelope"] = .object(envelope)
        return try JSONSerialization.data(withJSONObject: JSONValue.object(top).foundationValue)
    }

    @Test("every refusal the issue names, carried by one bundle in one run: each model fails with its problem, nothing is fetched or installed")
    func refusalTable() async throws {
        let (privateKey, publicKey) = try await kit.key("publisher")
        let (otherKey, _) = try await kit.key("other")
        let root = try await kit.rootCA("root")
        let intermediate = try await kit.issue("intermediate", by: root, extensions: PublisherSigningKit.intermediateExtensions)
        let stranger = try await kit.rootCA("unpinned")
        func signed(_ name: String, content: String = "dummy", _ sign: (URL, URL) async throws -> Void) async throws -> Data {
            let file = kit.file("\(name).bin"), sig = kit.file("\(name).sig")
            try Data(content.utf8).write(to: file)
            try await sign(file, sig)
            return try Data(contentsOf: sig)
        }
        func byCertificate(_ name: String, issuer: PublisherSigningKit.Issued, extensions: String = PublisherSigningKit.signingExtensions,
                           expired: Bool = false) async throws -> Data {
            let day: TimeInterval = 86400
            let leaf = try await kit.issue(name, by: issuer, extensions: extensions, notBefore: Date().addingTimeInterval(expired ? -3 * day : -3600),
                                           notAfter: Date().addingTimeInterval(expired ? -day : day))
            return try await signed(name) { try await kit.signWithCertificate($0, leaf: leaf, chain: issuer.certificate == root.certificate ? [] : [issuer.certificate], signature: $1) }
        }
        let valid = try await signed("valid") { try await kit.signWithKey($0, privateKey: privateKey, signature: $1) }
        try await kit.compatibilityBundle(from: kit.file("valid.sig"), privateKey: privateKey, oldPredicate: false, output: kit.file("compat.sig"))
        let unpinnedLeaf = try await kit.issue("stranger-leaf", by: stranger, extensions: PublisherSigningKit.signingExtensions)
        try await kit.keylessBundle(from: kit.file("valid.sig"), certificate: unpinnedLeaf.certificate, output: kit.file("keyless.sig"))
        let cases: [(id: String, signature: Data, problem: String)] = [
            ("flipped", try Self.flipped(valid), "bad-signature"),
            ("other-key", try await signed("other-key") { try await kit.signWithKey($0, privateKey: otherKey, signature: $1) }, "unknown-key"),
            ("stolen", try await signed("stolen", content: "tiny 1.0.0 weights") { try await kit.signWithKey($0, privateKey: privateKey, signature: $1) }, "digest-mismatch"),
            ("compat", try Data(contentsOf: kit.file("compat.sig")), "compatibility-format"),
            ("keyless", try Data(contentsOf: kit.file("keyless.sig")), "keyless"),
            ("expired", try await byCertificate("expired", issuer: intermediate, expired: true), "certificate-expired"),
            ("server-only", try await byCertificate("server-only", issuer: intermediate, extensions: PublisherSigningKit.serverOnlyExtensions), "certificate-usage"),
            ("unpinned", try await byCertificate("unpinned-leaf", issuer: stranger), "certificate-untrusted"),
        ]
        for c in cases {
            let entry = registry.publish(c.id, "1.0.0")
            try bundle(entry, bytes: Data("\(c.id) 1.0.0 weights".utf8), signature: c.signature)
        }
        let report = await reconciler(cases.map { ModelSpec(id: $0.id) }, keys: [publicKey], roots: [root.certificate]).run()
        for c in cases {
            let result = report.results.first { $0.modelId == c.id }
            #expect(result?.failure?.trust?.problemCode == c.problem, "\(c.id): \(String(describing: result?.status))")
            #expect(!FileManager.default.fileExists(atPath: store.file(c.id).path), "\(c.id) installed")
        }
        #expect(registry.calls("download").isEmpty)
    }

    @Test("an optional signature: an unsigned model installs with a warning and no signer")
    func optionalUnsigned() async throws {
        let (_, publicKey) = try await kit.key("publisher")
        registry.publish("plain", "1.0.0")
        var spec = ModelSpec(id: "plain")
        spec.signature = .optional
        let report = await reconciler([spec], keys: [publicKey]).run()
        #expect(report.results.map(\.status) == [.installed(version: "1.0.0")])
        #expect(report.results.first?.signer == nil)
        #expect(report.warnings.contains { $0.contains("plain 1.0.0") && $0.contains("optional") })
    }
}
#endif

#if os(Linux) || os(macOS) // model_signing and openssl run as child processes
import Foundation
import Manashiki
@testable import ManashikiSync
import ManashikiCore
import ManashikiTestSupport
import Testing

/// The run's trust chain (`SyncRun.makeTrust`) consulted before install, replace and keep, with
/// signatures made by upstream's `model_signing` and carried by a bundle beside the blob.
@Suite("Sync run: trust before install, replace and keep", .serialized, .requires(.openssl, .modelSigning, .pyOpenSSL))
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
        let signature = try Data(contentsOf: sigFile)
        try FileManager.default.createDirectory(at: bundle.blobDirectory, withIntermediateDirectories: true)
        try bytes.write(to: bundle.blob(entry.sha256))
        let sigSHA = SHA256Hasher.hash(signature).hex
        try signature.write(to: bundle.blob(sigSHA))
        let pinned = PinnedArtifact(modelId: id, version: version, size: Int64(bytes.count), sha256: entry.sha256,
                                    signature: SignatureReference(sha256: sigSHA, size: Int64(signature.count)))
        var models = (try? BundleIndex.read(bundle).models) ?? []
        models.removeAll { $0.modelId == id }
        try BundleIndex(models: models + [pinned]).encoded().write(to: bundle.indexFile)
        return entry
    }

    func reconciler(_ models: [ModelSpec], keys publicKeys: [URL]) -> Reconciler {
        var manifest = Fixture.manifest(store, models)
        manifest.sources = [ArtifactSource(.bundle(bundle.directory.path))]
        manifest.trust = TrustSettings(modelSigning: ModelSigningSettings(keys: publicKeys.map { .file($0.path) }))
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

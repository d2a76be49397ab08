#if os(Linux) || os(macOS) // model_signing and openssl run as child processes
import Testing
import Foundation
import Manashiki
import ManashikiTestSupport
@testable import ManashikiSync
import ManashikiCore

extension RestoreTests {
    @Test("ModelSync.restore takes publisher keys as downloadModel does: shipped beside the manifest in the app bundle, or in code (the same PublisherTrust, standing in for the manifest's keys); another publisher's key installs nothing",
          .requires(.openssl, .modelSigning, .pyOpenSSL))
    func signedRestore() async throws {
        let kit = try PublisherSigningKit.make()
        let (privateKey, publicKey) = try await kit.key("publisher")
        let (_, otherKey) = try await kit.key("other")
        let artifact = Data("whisper weights".utf8)
        try artifact.write(to: kit.file("whisper-ja.bin"))
        try await kit.signWithKey(kit.file("whisper-ja.bin"), privateKey: privateKey, signature: kit.file("model.sig"))
        let signature = try Data(contentsOf: kit.file("model.sig"))
        let mock = Self.whisperRegistry(serving: artifact) { request in
            request.url.host == "signatures.example.test" && request.url.path == "/whisper-ja/1.4.2/model.sig" ? .bytes(signature) : nil
        }
        // The app bundle: two manifests, each pinning a key file beside it, and the keys.
        let store = TestStore()
        let app = store.url.appendingPathComponent("App.app", isDirectory: true)
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: publicKey, to: app.appendingPathComponent("publisher.pub.pem"))
        try FileManager.default.copyItem(at: otherKey, to: app.appendingPathComponent("other.pub.pem"))
        func manifest(pinning key: String) throws -> URL {
            let url = app.appendingPathComponent("models-\(key).json")
            try Data(#"{"schemaVersion": 1, "trust": {"modelSigning": {"keys": [{"file": "\#(key).pub.pem"}], "signatureURL": "https://signatures.example.test/{modelId}/{version}/model.sig"}}, "models": [{"id": "whisper-ja", "version": "^1.4"}]}"#.utf8).write(to: url)
            return url
        }
        let fingerprint = try PublisherKey(contentsOf: publicKey).fingerprint
        func restore(_ manifestURL: URL, into name: String, keyInCode: URL?) async throws -> (ModelResult?, URL) {
            var options = Reconciler.Options(lockTimeout: .seconds(10), sleep: Fixture.lockPollSleep, device: Fixture.linux, freeSpace: { _ in 1 << 30 })
            options.publisherTrust = try keyInCode.map { PublisherTrust(keys: [try PublisherKey(contentsOf: $0)]) }
            let models = store.url.appendingPathComponent(name)
            let report = try await ModelSync.restore(manifestURL: manifestURL, apiKey: "mk_pub_acme_0123456789abcdefghij",
                                                     storeDirectory: models, transport: mock, options: options)
            return (report["whisper-ja"], models.appendingPathComponent("whisper-ja.bin"))
        }

        // The key shipped beside the manifest: installed, signed by it (the signature from signatureURL).
        let (shipped, shippedFile) = try await restore(try manifest(pinning: "publisher"), into: "a", keyInCode: nil)
        #expect(shipped?.status == .installed(version: "1.4.2") && shipped?.signer?.keyFingerprint == fingerprint, "\(String(describing: shipped))")
        #expect(FileManager.default.contents(atPath: shippedFile.path) == artifact)
        // The key in code stands in for the manifest's: installed although the manifest pins another key…
        let (inCode, inCodeFile) = try await restore(try manifest(pinning: "other"), into: "b", keyInCode: publicKey)
        #expect(inCode?.status == .installed(version: "1.4.2") && inCode?.signer?.keyFingerprint == fingerprint, "\(String(describing: inCode))")
        #expect(FileManager.default.contents(atPath: inCodeFile.path) == artifact)
        // …and another publisher's key in code refuses it although the manifest pins the right one.
        let (refused, refusedFile) = try await restore(try manifest(pinning: "publisher"), into: "c", keyInCode: otherKey)
        guard case .failed(let failure)? = refused?.status else { Issue.record("not refused: \(String(describing: refused))"); return }
        #expect(failure.trust?.problemCode == "unknown-key")
        #expect(!FileManager.default.fileExists(atPath: refusedFile.path))
    }
}
#endif

#if os(Linux) || os(macOS) // model_signing and openssl run as child processes
import Foundation
@testable import Manashiki
import ManashikiCore
import ManashikiTestSupport
import Testing

/// `DownloadOptions.trust` with `PublisherSignatureCheck`: the app's pinned key decides before a
/// byte is fetched; signatures made by upstream's `model_signing`.
@Suite("Publisher signatures in downloadModel", .serialized, .requires(.openssl, .modelSigning, .pyOpenSSL))
struct PublisherSignatureCheckTests {
    let dir = ScratchDirectory()
    let kit: PublisherSigningKit
    let storage = ScriptedStorage(size: 64 << 10)

    init() throws { kit = try PublisherSigningKit.make() }

    /// A signature of the storage's artifact as `tiny.bin` by `privateKey`.
    func signature(_ privateKey: URL) async throws -> Data {
        let file = kit.file("tiny.bin")
        try storage.artifact.write(to: file)
        let sig = kit.file("tiny.sig")
        try await kit.signWithKey(file, privateKey: privateKey, signature: sig)
        return try Data(contentsOf: sig)
    }

    func options(_ key: URL, signature: Data?, asked: Locked<[URL]>) throws -> DownloadOptions {
        let locator = SignatureURLLocator(template: "https://signatures.example.test/{modelId}/{version}/model.sig") { url in
            asked.withLock { $0.append(url) }
            return signature.map { (200, $0) } ?? (404, Data())
        }
        var options = DownloadOptions()
        options.trust = ArtifactTrustChain([PublisherSignatureCheck(trust: PublisherTrust(keys: [try PublisherKey(contentsOf: key)]), locator: locator)])
        return options
    }

    @Test("the pinned key's signature: installed, the signer in the evidence")
    func accepted() async throws {
        let (privateKey, publicKey) = try await kit.key("publisher", curve: "P-384")
        let asked = Locked<[URL]>([])
        let (client, _) = try makeClient(storage: dir.url, storage.handler)
        let model = try await client.downloadModel("tiny", session: nil, expecting: nil,
                                                   options: try options(publicKey, signature: try await signature(privateKey), asked: asked))
        #expect(try Data(contentsOf: model.localURL) == storage.artifact)
        let signer = try #require(model.trust.first.flatMap(PublisherSignatureCheck.signer(in:)))
        #expect(signer.keyFingerprint == (try PublisherKey(contentsOf: publicKey)).fingerprint)
        #expect(asked.current.map(\.absoluteString) == ["https://signatures.example.test/tiny/1.0.0/model.sig"])
    }

    @Test("another key's signature, or none: refused before a byte is fetched, the installed file stays")
    func refused() async throws {
        let (privateKey, _) = try await kit.key("publisher")
        let (_, otherPublic) = try await kit.key("other")
        let previous = Data("previous verified model".utf8)
        try previous.write(to: dir.file("tiny.bin"))
        for signature in [try await signature(privateKey), nil] {
            let (client, mock) = try makeClient(storage: dir.url, storage.handler)
            let asked = Locked<[URL]>([])
            await #expect { try await client.downloadModel("tiny", session: nil, expecting: nil,
                                                            options: try options(otherPublic, signature: signature, asked: asked)) } throws: { error in
                guard let refusal = error as? TrustRefusal else { return false }
                return refusal.mechanism == "model-signing" && refusal.problemCode == (signature == nil ? "missing" : "unknown-key")
                    && refusal.description.contains("tiny 1.0.0") && !refusal.isRetryable
            }
            #expect(mock.requests.map(\.url.host) == ["models.example.test"]) // the ticket only, no storage request
            #expect(try Data(contentsOf: dir.file("tiny.bin")) == previous)
        }
    }
}
#endif

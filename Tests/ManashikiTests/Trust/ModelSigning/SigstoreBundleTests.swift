#if os(Linux) || os(macOS) // model_signing and openssl run as child processes
import Foundation
@testable import Manashiki
import ManashikiCore
import ManashikiTestSupport
import Testing

/// `model.sig` files written by upstream's `model_signing` (key and certificate modes, a file and
/// a folder), read by `SigstoreBundle` and `ModelSigningStatement`, and the shapes they refuse.
@Suite("Sigstore bundles and model-signing statements", .serialized, .requires(.openssl, .modelSigning, .pyOpenSSL))
struct SigstoreBundleTests {
    let kit: PublisherSigningKit
    let model: URL
    let modelSHA256: String

    init() throws {
        kit = try PublisherSigningKit.make()
        model = kit.file("whisper-tiny.bin")
        let bytes = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try bytes.write(to: model)
        modelSHA256 = SHA256Hasher.hash(bytes).hex
    }

    @Test("model_signing sign key: a v0.3 bundle whose hint is the SHA-256 of the key's PEM, signing the file as '.'", arguments: ["P-256", "P-384", "P-521"])
    func keyBundle(curve: String) async throws {
        let (privateKey, publicKey) = try await kit.key("publisher", curve: curve)
        let sig = kit.file("model.sig")
        try await kit.signWithKey(model, privateKey: privateKey, signature: sig)
        let bundle = try SigstoreBundle.parse(Data(contentsOf: sig))
        #expect(bundle.material == .publicKey(hint: SHA256Hasher.hash(try Data(contentsOf: publicKey)).hex))
        #expect(bundle.envelope.payloadType == DSSEEnvelope.inTotoPayloadType)
        let statement = try ModelSigningStatement(payload: bundle.envelope.payload)
        #expect(statement.subjectName == "whisper-tiny.bin")
        #expect(statement.fileSHA256 == modelSHA256)
    }

    @Test("model_signing sign certificate: the chain leaf first, each certificate's DER")
    func certificateBundle() async throws {
        let root = try await kit.rootCA("root")
        let intermediate = try await kit.issue("intermediate", by: root, extensions: PublisherSigningKit.intermediateExtensions)
        let leaf = try await kit.issue("publisher", by: intermediate, extensions: PublisherSigningKit.signingExtensions)
        let sig = kit.file("model.sig")
        try await kit.signWithCertificate(model, leaf: leaf, chain: [intermediate.certificate], signature: sig)
        let bundle = try SigstoreBundle.parse(Data(contentsOf: sig))
        guard case .certificateChain(let chain) = bundle.material else { Issue.record("not a chain: \(bundle.material)"); return }
        #expect(chain.count == 2)
        #expect(chain[0] == Self.der(leaf.certificate))
        #expect(chain[1] == Self.der(intermediate.certificate))
        #expect(try ModelSigningStatement(payload: bundle.envelope.payload).fileSHA256 == modelSHA256)
    }

    @Test("A folder's signature names its files, not '.': not one file")
    func folderSignature() async throws {
        let folder = kit.file("folder")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: model, to: folder.appendingPathComponent("whisper-tiny.bin"))
        let (privateKey, _) = try await kit.key("publisher")
        let sig = kit.file("folder.sig")
        try await kit.signWithKey(folder, privateKey: privateKey, signature: sig)
        let bundle = try SigstoreBundle.parse(Data(contentsOf: sig))
        #expect(throws: PublisherSignatureProblem.notSingleFile("a folder holding \"whisper-tiny.bin\"")) {
            try ModelSigningStatement(payload: bundle.envelope.payload)
        }
    }

    @Test("The v0.1/v0.2 predicate upstream reads for compatibility is refused")
    func compatibilityPredicate() async throws {
        let (privateKey, _) = try await kit.key("publisher")
        let sig = kit.file("model.sig"), old = kit.file("old.sig")
        try await kit.signWithKey(model, privateKey: privateKey, signature: sig)
        try await kit.compatibilityBundle(from: sig, privateKey: privateKey, oldPredicate: true, output: old)
        let bundle = try SigstoreBundle.parse(Data(contentsOf: old))
        #expect(throws: PublisherSignatureProblem.compatibilityFormat("the v0.1/v0.2 predicate https://model_signing/Digests/v0.1")) {
            try ModelSigningStatement(payload: bundle.envelope.payload)
        }
    }

    @Test("A keyless bundle (a Fulcio-style certificate, a Rekor entry) is refused as keyless")
    func keyless() async throws {
        let (privateKey, _) = try await kit.key("publisher")
        let root = try await kit.rootCA("root")
        let sig = kit.file("model.sig"), keyless = kit.file("keyless.sig")
        try await kit.signWithKey(model, privateKey: privateKey, signature: sig)
        try await kit.keylessBundle(from: sig, certificate: root.certificate, output: keyless)
        #expect(throws: PublisherSignatureProblem.keyless("it carries 1 Rekor transparency-log entry")) {
            try SigstoreBundle.parse(Data(contentsOf: keyless))
        }
    }

    /// Edits of a real bundle (top-level keys replaced) and the problem each must be refused with.
    static let edits: [(String, PublisherSignatureProblem)] = [
        (#"{"verificationMaterial": {"publicKey": {}}}"#, .missingKeyHint),
        (#"{"mediaType": "application/vnd.dev.sigstore.bundle+json;version=0.2"}"#, .unsupportedBundle(mediaType: "application/vnd.dev.sigstore.bundle+json;version=0.2")),
        (#"{"verificationMaterial": {"publicKey": {"hint": "ab"}, "tlogEntries": []}}"#, .malformed("verificationMaterial.publicKey.hint is not 64 lowercase hex digits")),
        (#"{"verificationMaterial": {"certificate": {"rawBytes": "AA=="}}}"#, .keyless("it carries a single Fulcio-style certificate")),
        (#"{"verificationMaterial": {"publicKey": {"hint": "00"}, "timestampVerificationData": {}}}"#, .keyless("it carries timestamp verification data")),
        (#"{"messageSignature": {}}"#, .malformed("it holds a messageSignature, not a DSSE envelope (model_signing signs an in-toto statement in a DSSE envelope)")),
    ]

    @Test("Edited bundles: each refused with its own problem (one signature, edited each way)")
    func edited() async throws {
        let (privateKey, _) = try await kit.key("publisher")
        let sig = kit.file("model.sig")
        try await kit.signWithKey(model, privateKey: privateKey, signature: sig)
        for (patch, problem) in Self.edits {
            guard case .object(var top) = try JSONValue.parse(Data(contentsOf: sig)),
                  case .object(let changes) = try JSONValue.parse(Data(patch.utf8)) else { Issue.record("not objects"); return }
            for (key, value) in changes { top[key] = value }
            let data = try JSONSerialization.data(withJSONObject: JSONValue.object(top).foundationValue)
            #expect(throws: problem, "\(patch)") { try SigstoreBundle.parse(data) }
        }
    }

    @Test("Not JSON, too large, a duplicate key: refused before anything is read")
    func bounds() throws {
        #expect(throws: PublisherSignatureProblem.malformed("it is \(SigstoreBundle.maximumSize + 1) bytes, more than \(SigstoreBundle.maximumSize)")) {
            try SigstoreBundle.parse(Data(count: SigstoreBundle.maximumSize + 1))
        }
        #expect(throws: PublisherSignatureProblem.self) { try SigstoreBundle.parse(Data(#"{"mediaType": "a", "mediaType": "b"}"#.utf8)) }
        #expect(throws: PublisherSignatureProblem.self) { try SigstoreBundle.parse(Data("-----BEGIN".utf8)) }
    }

    @Test("DSSE's pre-authentication encoding and upstream's pre-1.0 one")
    func encodings() throws {
        let envelope = try DSSEEnvelope(["payloadType": "application/vnd.in-toto+json", "payload": "eyJhIjoiJ1xuIn0=",
                                         "signatures": [["sig": "AQI=", "keyid": ""]]])
        #expect(String(decoding: envelope.preAuthenticationEncoding, as: UTF8.self) == #"DSSEv1 28 application/vnd.in-toto+json 11 {"a":"'\n"}"#)
        // Python 3: f"{base64.b64decode('eyJhIjoiJ1xuIn0=')}" is b'{"a":"\'\\n"}' (both quotes, so
        // single quotes with \' ; the backslash doubled).
        #expect(String(decoding: envelope.compatibilityEncoding, as: UTF8.self) == #"DSSEV1 28 application/vnd.in-toto+json 11 b'{"a":"\'\\n"}'"#)
    }

    static func der(_ pem: URL) -> [UInt8] {
        let text = (try? String(contentsOf: pem, encoding: .utf8)) ?? ""
        let body = text.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return Array(Data(base64Encoded: body) ?? Data())
    }
}
#endif

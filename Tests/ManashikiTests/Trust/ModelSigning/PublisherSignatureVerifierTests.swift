#if os(Linux) || os(macOS) // model_signing and openssl run as child processes
import Foundation
@testable import Manashiki
import ManashikiCore
import ManashikiTestSupport
import Testing

/// Signatures made by upstream's `model_signing` with keys and CA chains made by `openssl`,
/// verified by `PublisherSignatureVerifier`: the valid ones name their signer, every other one
/// is refused with the problem the issue names.
@Suite("Publisher signatures: verification", .serialized, .requires(.openssl, .modelSigning, .pyOpenSSL))
struct PublisherSignatureVerifierTests {
    let kit: PublisherSigningKit
    let model: URL
    let sha256: String
    static let modelId = "whisper-tiny"

    init() throws {
        kit = try PublisherSigningKit.make()
        model = kit.file("\(Self.modelId).bin")
        let bytes = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) })
        try bytes.write(to: model)
        sha256 = SHA256Hasher.hash(bytes).hex
    }

    func keySigned(curve: String = "P-256") async throws -> (signature: Data, key: PublisherKey, privateKey: URL, sigFile: URL) {
        let (privateKey, publicKey) = try await kit.key("publisher-\(curve)", curve: curve)
        let sig = kit.file("model-\(curve).sig")
        try await kit.signWithKey(model, privateKey: privateKey, signature: sig)
        return (try Data(contentsOf: sig), try PublisherKey(contentsOf: publicKey), privateKey, sig)
    }

    @Test("P-256, P-384 and P-521 key signatures verify and name the pinned key", arguments: ["P-256", "P-384", "P-521"])
    func validKey(curve: String) async throws {
        let (signature, key, _, _) = try await keySigned(curve: curve)
        let signer = try PublisherSignatureVerifier(trust: PublisherTrust(keys: [key])).verify(signature, modelId: Self.modelId, sha256: sha256)
        #expect(signer.mode == .key)
        #expect(signer.keyFingerprint == key.fingerprint)
        #expect(signer.signatureSHA256 == SHA256Hasher.hash(signature).hex)
    }

    @Test("Another publisher's key, no key pinned, other bytes, another model's file: each refused")
    func keyRefusals() async throws {
        let (signature, key, _, _) = try await keySigned()
        let (_, otherPublic) = try await kit.key("other")
        let other = try PublisherKey(contentsOf: otherPublic)
        let verifier = PublisherSignatureVerifier(trust: PublisherTrust(keys: [other]))
        #expect(throws: PublisherSignatureFailure(problem: .unknownKey(hint: key.hint), signer: nil)) {
            try verifier.verify(signature, modelId: Self.modelId, sha256: sha256)
        }
        let pinned = PublisherSignatureVerifier(trust: PublisherTrust(keys: [key]))
        let otherBytes = String(repeating: "ab", count: 32)
        #expect(throws: PublisherSignatureFailure(problem: .digestMismatch(signed: sha256, artifact: otherBytes), signer: PublisherSigner(mode: .key, name: key.fingerprint, keyFingerprint: key.fingerprint))) {
            try pinned.verify(signature, modelId: Self.modelId, sha256: otherBytes)
        }
        #expect { try pinned.verify(signature, modelId: "llama-tiny", sha256: sha256) } throws: { error in
            (error as? PublisherSignatureFailure)?.problem == .subjectName(expected: "llama-tiny.bin", signed: "whisper-tiny.bin")
        }
        // Bound by digest only: the same signature is accepted for another id.
        let any = PublisherSignatureVerifier(trust: PublisherTrust(keys: [key], subject: .any))
        #expect(try any.verify(signature, modelId: "llama-tiny", sha256: sha256).mode == .key)
        #expect { try PublisherSignatureVerifier(trust: PublisherTrust(roots: [])).verify(signature, modelId: Self.modelId, sha256: sha256) } throws: { error in
            (error as? PublisherSignatureFailure)?.problem == .noKeysConfigured
        }
    }

    @Test("A flipped byte anywhere in the signed statement or the signature: bad signature")
    func flipped() async throws {
        let (signature, key, _, _) = try await keySigned()
        let verifier = PublisherSignatureVerifier(trust: PublisherTrust(keys: [key]))
        guard case .object(var top) = try JSONValue.parse(signature), case .object(var envelope)? = top["dsseEnvelope"],
              case .string(let payload)? = envelope["payload"] else { Issue.record("no payload"); return }
        var bytes = try #require(Data(base64Encoded: payload))
        bytes[bytes.count / 2] ^= 0x01
        envelope["payload"] = .string(bytes.base64EncodedString())
        top["dsseEnvelope"] = .object(envelope)
        let changed = try JSONSerialization.data(withJSONObject: JSONValue.object(top).foundationValue)
        #expect { try verifier.verify(changed, modelId: Self.modelId, sha256: sha256) } throws: { error in
            (error as? PublisherSignatureFailure)?.problem == .badSignature
        }
    }

    @Test("The compatibility formats: the v0.1/v0.2 predicate and upstream's pre-1.0 PAE are refused")
    func compatibility() async throws {
        let (_, key, privateKey, sig) = try await keySigned()
        let verifier = PublisherSignatureVerifier(trust: PublisherTrust(keys: [key]))
        for old in [true, false] {
            let output = kit.file("compat-\(old).sig")
            try await kit.compatibilityBundle(from: sig, privateKey: privateKey, oldPredicate: old, output: output)
            #expect { try verifier.verify(Data(contentsOf: output), modelId: Self.modelId, sha256: sha256) } throws: { error in
                guard case .compatibilityFormat? = (error as? PublisherSignatureFailure)?.problem else { return false }
                return true
            }
        }
    }

    @Test("A keyless bundle is refused as keyless")
    func keyless() async throws {
        let (_, key, _, sig) = try await keySigned()
        let root = try await kit.rootCA("root")
        let output = kit.file("keyless.sig")
        try await kit.keylessBundle(from: sig, certificate: root.certificate, output: output)
        #expect { try PublisherSignatureVerifier(trust: PublisherTrust(keys: [key])).verify(Data(contentsOf: output), modelId: Self.modelId, sha256: sha256) } throws: { error in
            guard case .keyless? = (error as? PublisherSignatureFailure)?.problem else { return false }
            return true
        }
    }

    /// A certificate-mode signature by a leaf of `extensions` and validity, through an
    /// intermediate, and the pinned root.
    func certificateSigned(extensions: String = PublisherSigningKit.signingExtensions, notAfter: Date = Date().addingTimeInterval(86400),
                           notBefore: Date = Date().addingTimeInterval(-3600)) async throws -> (Data, [PublisherRoot]) {
        let root = try await kit.rootCA("root")
        let intermediate = try await kit.issue("intermediate", by: root, extensions: PublisherSigningKit.intermediateExtensions)
        let leaf = try await kit.issue("publisher", by: intermediate, extensions: extensions, notBefore: notBefore, notAfter: notAfter)
        let sig = kit.file("cert.sig")
        try await kit.signWithCertificate(model, leaf: leaf, chain: [intermediate.certificate], signature: sig)
        return (try Data(contentsOf: sig), try PublisherRoot.certificates(contentsOf: root.certificate))
    }

    @Test("A certificate chaining to the pinned root verifies and names the subject and issuer")
    func validCertificate() async throws {
        let (signature, roots) = try await certificateSigned()
        let signer = try PublisherSignatureVerifier(trust: PublisherTrust(roots: roots)).verify(signature, modelId: Self.modelId, sha256: sha256)
        #expect(signer == PublisherSigner(mode: .certificate, name: "CN=publisher, O=Manashiki Tests", issuer: "CN=intermediate, O=Manashiki Tests",
                                          signatureSHA256: SHA256Hasher.hash(signature).hex))
    }

    @Test("An expired certificate, a wrong-usage one, a chain to an unpinned root: each refused naming the subject")
    func certificateRefusals() async throws {
        let yesterday = Date().addingTimeInterval(-86400)
        let (expired, roots) = try await certificateSigned(notAfter: yesterday, notBefore: yesterday.addingTimeInterval(-86400))
        #expect { try PublisherSignatureVerifier(trust: PublisherTrust(roots: roots)).verify(expired, modelId: Self.modelId, sha256: sha256) } throws: { error in
            guard let f = error as? PublisherSignatureFailure, case .certificate(.expired) = f.problem else { return false }
            return f.signer?.name == "CN=publisher, O=Manashiki Tests"
        }
        let (server, serverRoots) = try await certificateSigned(extensions: PublisherSigningKit.serverOnlyExtensions)
        #expect { try PublisherSignatureVerifier(trust: PublisherTrust(roots: serverRoots)).verify(server, modelId: Self.modelId, sha256: sha256) } throws: { error in
            guard case .certificate(.wrongUsage)? = (error as? PublisherSignatureFailure)?.problem else { return false }
            return true
        }
        let (valid, _) = try await certificateSigned()
        let unpinned = try PublisherRoot.certificates(contentsOf: try await kit.rootCA("unpinned").certificate)
        #expect { try PublisherSignatureVerifier(trust: PublisherTrust(roots: unpinned)).verify(valid, modelId: Self.modelId, sha256: sha256) } throws: { error in
            guard case .certificate(.untrusted)? = (error as? PublisherSignatureFailure)?.problem else { return false }
            return true
        }
    }

    @Test("The key hint is the SHA-256 of cryptography's PEM, whatever the pinned file's line breaks")
    func hint() async throws {
        let (_, publicKey) = try await kit.key("k")
        let text = try String(contentsOf: publicKey, encoding: .utf8)
        let reflowed = text.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try PublisherKey(pem: reflowed).hint == SHA256Hasher.hash(try Data(contentsOf: publicKey)).hex)
    }
}
#endif

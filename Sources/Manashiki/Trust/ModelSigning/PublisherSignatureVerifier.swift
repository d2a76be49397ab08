import Foundation
import ManashikiCore

/// Verifies one publisher signature (`model.sig`, OpenSSF model signing) for one artifact,
/// offline, in this order — nothing in the signed statement is read before its signature
/// verified:
///
/// 1. the bundle is read (`SigstoreBundle`: v0.3 only, keyless and compatibility material refused);
/// 2. the signer: key mode needs the hint and a pinned key with that hint; certificate mode
///    verifies the chain against the pinned roots at `time` (`CertificateChain`: validity,
///    digitalSignature or codeSigning, the platform's path validation);
/// 3. the ECDSA signature over DSSE's pre-authentication encoding, with the hash the curve
///    calls for (P-256 SHA-256, P-384 SHA-384, P-521 SHA-512); a signature over upstream's
///    pre-1.0 encoding is named as such and refused;
/// 4. the statement (`ModelSigningStatement`): in-toto v1, predicate v1.0, one file `.`, the
///    subject digest recomputed, the subject name bound to the model (`PublisherTrust.subject`);
/// 5. the signed file digest against the artifact's SHA-256.
public struct PublisherSignatureVerifier: Sendable {
    /// The pinned keys and roots.
    public let trust: PublisherTrust

    /// A verifier for `trust`.
    public init(trust: PublisherTrust) { self.trust = trust }

    /// Who signed `signature` for `modelId`'s artifact of `sha256`, at `time`.
    /// - Throws: `PublisherSignatureFailure` with what failed and, when known, the signer.
    public func verify(_ signature: Data, modelId: String, sha256: String, at time: Date = Date()) throws(PublisherSignatureFailure) -> PublisherSigner {
        let bundle: SigstoreBundle
        do { bundle = try SigstoreBundle.parse(signature) } catch { throw PublisherSignatureFailure(problem: error, signer: nil) }
        let (key, signer) = try identify(bundle.material, at: time)
        let envelope = bundle.envelope
        guard key.isValidSignature(envelope.signature, for: envelope.preAuthenticationEncoding) else {
            let compat = key.isValidSignature(envelope.signature, for: envelope.compatibilityEncoding)
            throw PublisherSignatureFailure(problem: compat ? .compatibilityFormat("upstream's pre-1.0 PAE encoding (DSSEV1 with the payload's Python repr)") : .badSignature,
                                            signer: signer)
        }
        do throws(PublisherSignatureProblem) {
            let statement = try ModelSigningStatement(payload: envelope.payload)
            if let expected = trust.expectedSubjectName(for: modelId), statement.subjectName != expected {
                throw PublisherSignatureProblem.subjectName(expected: expected, signed: statement.subjectName)
            }
            guard statement.fileSHA256 == sha256 else { throw PublisherSignatureProblem.digestMismatch(signed: statement.fileSHA256, artifact: sha256) }
        } catch {
            throw PublisherSignatureFailure(problem: error, signer: signer)
        }
        var verified = signer
        verified.signatureSHA256 = SHA256Hasher.hash(signature).hex
        return verified
    }

    /// The verification key and the signer, from the bundle's material and the pinned trust.
    private func identify(_ material: SigstoreBundle.Material, at time: Date) throws(PublisherSignatureFailure) -> (PublicKey, PublisherSigner) {
        switch material {
        case .publicKey(let hint):
            guard !trust.keys.isEmpty else { throw PublisherSignatureFailure(problem: .noKeysConfigured, signer: nil) }
            guard let pinned = trust.keys.first(where: { $0.hint == hint }) else {
                throw PublisherSignatureFailure(problem: .unknownKey(hint: hint), signer: nil)
            }
            return (pinned.key, PublisherSigner(mode: .key, name: pinned.fingerprint, keyFingerprint: pinned.fingerprint))
        case .certificateChain(let chain):
            guard !trust.roots.isEmpty else { throw PublisherSignatureFailure(problem: .noRootsConfigured, signer: nil) }
            let leaf: X509Certificate
            do { leaf = try CertificateChain.verify(chain, anchors: trust.roots.map(\.certificate.der), at: time) } catch {
                let subject = (try? X509Certificate(der: chain[0]))?.subject
                throw PublisherSignatureFailure(problem: .certificate(CertificateProblem(error)), signer: subject.map { PublisherSigner(mode: .certificate, name: $0) })
            }
            var key: PublicKey?
            for scheme in [SignatureScheme.ecdsaP256SHA256, .ecdsaP384SHA384, .ecdsaP521SHA512] where key == nil {
                key = try? PublicKey(scheme: scheme, spki: leaf.subjectPublicKeyInfo)
            }
            let signer = PublisherSigner(mode: .certificate, name: leaf.subject, keyFingerprint: nil, issuer: leaf.issuer)
            guard let key else {
                throw PublisherSignatureFailure(problem: .certificate(.invalid("its key is not ECDSA P-256, P-384 or P-521")), signer: signer)
            }
            return (key, signer)
        }
    }
}

extension CertificateProblem {
    init(_ failure: CertificateChain.Failure) {
        let format = Date.ISO8601FormatStyle()
        switch failure {
        case .notValidNow(let subject, let notBefore, let notAfter):
            self = .expired("\(subject) is valid from \(notBefore.formatted(format)) to \(notAfter.formatted(format))")
        case .wrongUsage(let subject, let usage): self = .wrongUsage("\(subject): \(usage)")
        case .untrusted(let why): self = .untrusted(why)
        case .invalid(let why): self = .invalid(why)
        }
    }
}

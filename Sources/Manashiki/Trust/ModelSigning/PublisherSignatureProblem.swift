import Foundation

/// What is wrong with a publisher signature (an OpenSSF model-signing `model.sig`), one case per
/// check, so code decides by the case and a person reads `description`. Wrapped with the model,
/// the source and the signer in `PublisherSignatureRefusal`.
public enum PublisherSignatureProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// No signature was found where the configuration says one must be (`where` lists each place
    /// tried and its answer).
    case missing(String)
    /// The file is not a Sigstore bundle this verifier reads (not JSON, too large, a field missing
    /// or of the wrong type); the text says which.
    case malformed(String)
    /// A Sigstore bundle of another media type (v0.1 and v0.2 are refused; model_signing 1.x
    /// writes v0.3).
    case unsupportedBundle(mediaType: String)
    /// A keyless Sigstore bundle (a Fulcio certificate, Rekor transparency-log entries or
    /// timestamps): out of scope, refused.
    case keyless(String)
    /// A key-mode bundle without the public key hint model_signing 1.x writes.
    case missingKeyHint
    /// A key-mode bundle whose key hint matches none of the pinned keys (signed with another key).
    case unknownKey(hint: String)
    /// A key-mode bundle, but no publisher key is configured (only roots).
    case noKeysConfigured
    /// A certificate-mode bundle, but no root is configured (only keys).
    case noRootsConfigured
    /// The certificate chain does not verify against the pinned roots, or the leaf may not sign.
    case certificate(CertificateProblem)
    /// The ECDSA signature over the DSSE envelope does not verify with the key.
    case badSignature
    /// A format only upstream's compatibility layer still accepts: the v0.1/v0.2 predicate
    /// `https://model_signing/Digests/v0.1`, or the pre-1.0 PAE encoding.
    case compatibilityFormat(String)
    /// The signed statement is not an in-toto Statement v1 with the model-signing v1.0 predicate
    /// (the text says what it is instead).
    case statement(String)
    /// The statement's subject digest is not the SHA-256 of its resources' digests.
    case inconsistentSubject(signed: String, computed: String)
    /// The signature names another file than the one this model is (`<modelId>.bin`).
    case subjectName(expected: String, signed: String)
    /// The signature covers several files, a folder, shards, or a digest other than SHA-256:
    /// not one single-file resource named `.` (upstream's convention for one file).
    case notSingleFile(String)
    /// The signature is valid but for other bytes than the artifact's.
    case digestMismatch(signed: String, artifact: String)

    /// What failed, in a sentence fragment (`the signature is for other bytes: …`).
    public var description: String {
        switch self {
        case .missing(let places): return "no signature was found (\(places))"
        case .malformed(let why): return "the signature file is not a valid Sigstore bundle: \(why)"
        case .unsupportedBundle(let type): return "the Sigstore bundle has media type \"\(type.prefix(120))\", not \(SigstoreBundle.mediaType) (model_signing 1.x writes v0.3)"
        case .keyless(let what): return "it is a keyless Sigstore signature (\(what)); keyless signatures (Fulcio certificates, Rekor entries) are not supported: the publisher must sign with a key (model_signing sign key) or a certificate (model_signing sign certificate)"
        case .missingKeyHint: return "the bundle has no public key hint (written by model_signing before 1.0, or by hand); it is refused: the publisher must re-sign with model_signing 1.x"
        case .unknownKey(let hint): return "it was signed with a key that is not pinned (key hint sha256:\(hint.prefix(16))…)"
        case .noKeysConfigured: return "it was signed with a key, but no publisher key is pinned (trust.modelSigning.keys)"
        case .noRootsConfigured: return "it was signed with a certificate, but no root is pinned (trust.modelSigning.roots)"
        case .certificate(let problem): return "its certificate \(problem)"
        case .badSignature: return "the signature does not verify (the signed statement or the signature was changed, or another key made it)"
        case .compatibilityFormat(let what): return "it uses \(what), which only upstream's compatibility layer accepts; the publisher must re-sign with model_signing 1.x"
        case .statement(let what): return "the signed statement \(what)"
        case .inconsistentSubject(let signed, let computed): return "the signed subject digest \(signed.prefix(12))… is not the digest of its resources (\(computed.prefix(12))…)"
        case .subjectName(let expected, let signed): return "it names the file \"\(signed.prefix(200))\", not \"\(expected)\" (a signature of another model)"
        case .notSingleFile(let what): return "it does not sign one file (\(what)): sign the model file itself, `model_signing sign … <modelId>.bin`"
        case .digestMismatch(let signed, let artifact): return "it signs other bytes (sha256 \(signed.prefix(12))…) than the artifact (sha256 \(artifact.prefix(12))…)"
        }
    }
}

extension PublisherSignatureProblem {
    /// A stable name for scripts (`TrustRefusal.problemCode`, `--json`'s `trust.problem`):
    /// `missing`, `malformed`, `unsupported-bundle`, `keyless`, `missing-key-hint`,
    /// `unknown-key`, `no-keys-configured`, `no-roots-configured`, `certificate-expired`,
    /// `certificate-untrusted`, `certificate-usage`, `certificate-invalid`, `bad-signature`,
    /// `compatibility-format`, `statement`, `inconsistent-subject`, `subject-name`,
    /// `not-single-file`, `digest-mismatch`.
    public var code: String {
        switch self {
        case .missing: return "missing"
        case .malformed: return "malformed"
        case .unsupportedBundle: return "unsupported-bundle"
        case .keyless: return "keyless"
        case .missingKeyHint: return "missing-key-hint"
        case .unknownKey: return "unknown-key"
        case .noKeysConfigured: return "no-keys-configured"
        case .noRootsConfigured: return "no-roots-configured"
        case .certificate(.expired): return "certificate-expired"
        case .certificate(.untrusted): return "certificate-untrusted"
        case .certificate(.wrongUsage): return "certificate-usage"
        case .certificate(.invalid): return "certificate-invalid"
        case .badSignature: return "bad-signature"
        case .compatibilityFormat: return "compatibility-format"
        case .statement: return "statement"
        case .inconsistentSubject: return "inconsistent-subject"
        case .subjectName: return "subject-name"
        case .notSingleFile: return "not-single-file"
        case .digestMismatch: return "digest-mismatch"
        }
    }

    /// What to do about it, in a sentence.
    public var remedy: String {
        switch self {
        case .missing:
            return "Ask the publisher for the model's model.sig, and make it reachable: next to the blob in a bundle or mirror (export carries the store's copy), as a layer of the OCI artifact, or at trust.modelSigning.signatureURL; or mark the model \"signature\": \"optional\" if it may be installed unsigned."
        case .unknownKey, .noKeysConfigured:
            return "If this publisher's key is the right one, pin it in trust.modelSigning.keys (PEM, openssl pkey -pubout); otherwise the artifact was not signed by a publisher you trust."
        case .noRootsConfigured, .certificate(.untrusted):
            return "If the signing certificate's issuer is the right one, pin its root (or intermediate) in trust.modelSigning.roots; otherwise the artifact was not signed by a publisher you trust."
        case .certificate(.expired):
            return "Ask the publisher to sign the model again with a current certificate (certificates are checked at the time of the check, not of signing)."
        case .keyless:
            return "Ask the publisher for a signature made with a key (model_signing sign key) or a certificate (model_signing sign certificate)."
        case .subjectName:
            return "The signature belongs to another model (or names the file differently): get this model's own signature, or set trust.modelSigning.subject to \"any\" if the publisher signs files under other names."
        case .digestMismatch, .badSignature, .inconsistentSubject:
            return "The signature does not cover these bytes: the registry, a source or the signature was changed, or the publisher signed another build. Do not install it; tell the publisher and the registry's operator."
        default:
            return "Ask the publisher to sign the model file itself again with model_signing 1.x (sign key or sign certificate)."
        }
    }
}

/// Why a certificate chain was refused.
public enum CertificateProblem: Sendable, Hashable, CustomStringConvertible {
    /// Not valid yet or no longer valid at the time of verification.
    case expired(String)
    /// The chain does not lead to a pinned root (an unknown issuer, a self-signed leaf, a root
    /// that is not pinned).
    case untrusted(String)
    /// The leaf has neither key usage digitalSignature nor extended key usage codeSigning.
    case wrongUsage(String)
    /// A certificate of the chain cannot be read, or its signature does not verify.
    case invalid(String)

    /// `is expired (…)`, `does not chain to a pinned root (…)`…
    public var description: String {
        switch self {
        case .expired(let what): return "is not valid now (\(what))"
        case .untrusted(let what): return "does not chain to a pinned root (\(what))"
        case .wrongUsage(let what): return "may not sign code (\(what)): it needs key usage digitalSignature or extended key usage codeSigning"
        case .invalid(let what): return "is invalid (\(what))"
        }
    }
}

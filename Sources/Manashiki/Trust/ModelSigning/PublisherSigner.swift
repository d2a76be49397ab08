import Foundation

/// Who signed an artifact, once its publisher signature verified: what `status` shows and the
/// store records.
public struct PublisherSigner: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How the signer was identified.
    public enum Mode: String, Sendable, Hashable, Codable {
        /// A pinned public key.
        case key
        /// A certificate chaining to a pinned root.
        case certificate
    }

    /// Key or certificate.
    public var mode: Mode
    /// The key's fingerprint (`sha256:…`) or the certificate's subject (`CN=…, O=…`).
    public var name: String
    /// The pinned key's fingerprint (key mode).
    public var keyFingerprint: String?
    /// The certificate's issuer (certificate mode).
    public var issuer: String?
    /// The SHA-256 of the `model.sig` that verified.
    public var signatureSHA256: String?

    /// Creates a signer.
    public init(mode: Mode, name: String, keyFingerprint: String? = nil, issuer: String? = nil, signatureSHA256: String? = nil) {
        self.mode = mode
        self.name = name
        self.keyFingerprint = keyFingerprint
        self.issuer = issuer
        self.signatureSHA256 = signatureSHA256
    }

    /// `key sha256:1a2b…` or `certificate CN=Publisher, O=Example (issued by CN=Example CA)`.
    public var description: String {
        switch mode {
        case .key: return "key \(name)"
        case .certificate: return "certificate \(name)" + (issuer.map { " (issued by \($0))" } ?? "")
        }
    }
}

/// A publisher signature that did not verify: what failed and, when it got that far, who
/// claimed to sign it.
public struct PublisherSignatureFailure: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
    /// What failed.
    public var problem: PublisherSignatureProblem
    /// The key or certificate the signature names, when it was read (nil: the bundle was
    /// unreadable, or its key is not pinned).
    public var signer: PublisherSigner?

    /// Creates a failure.
    public init(problem: PublisherSignatureProblem, signer: PublisherSigner?) {
        self.problem = problem
        self.signer = signer
    }

    /// `signed by certificate CN=…: its certificate is not valid now (…)`.
    public var description: String { (signer.map { "signed by \($0): " } ?? "") + problem.description }
    /// The description.
    public var errorDescription: String? { description }
}

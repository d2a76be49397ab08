import Foundation
import Manashiki

/// `trust.modelSigning`: publisher signatures (OpenSSF model signing, `model.sig`) checked before
/// a model is installed, replaced or kept as verified (docs/publisher-signatures.md).
///
/// ```json
/// "trust": {"modelSigning": {
///     "keys": [{"file": "/etc/manashiki/publisher-p256.pub.pem"}],
///     "roots": [{"file": "/etc/manashiki/publisher-ca.pem"}],
///     "signatureURL": "https://signatures.example.com/{modelId}/{version}/model.sig"}}
/// ```
/// and per model `"signature": "required"` or `"optional"` (`ModelSpec.signature`; default
/// `defaultRequirement`, required).
public struct ModelSigningSettings: Sendable, Hashable {
    /// Publisher public keys (PEM SubjectPublicKeyInfo, ECDSA P-256, P-384 or P-521), as written.
    public var keys: [PEMSource]
    /// Root certificates (PEM; a file may hold several) that certificate-mode signatures must
    /// chain to, as written. Never the system's roots.
    public var roots: [PEMSource]
    /// Where the registry source's signatures are: a URL with `{modelId}`, `{version}` and
    /// `{sha256}` replaced (https, or http to this machine); nil: only signatures carried by
    /// bundles, mirrors and OCI sources are used.
    public var signatureURL: String?
    /// What ties a signature to a model id (`"subject"`). Default `.modelFile`.
    public var subject: PublisherTrust.SubjectBinding
    /// The requirement of a model that names none. Default `.required`.
    public var defaultRequirement: SignatureRequirement

    /// Creates settings.
    public init(keys: [PEMSource] = [], roots: [PEMSource] = [], signatureURL: String? = nil,
                subject: PublisherTrust.SubjectBinding = .modelFile, defaultRequirement: SignatureRequirement = .required) {
        self.keys = keys
        self.roots = roots
        self.signatureURL = signatureURL
        self.subject = subject
        self.defaultRequirement = defaultRequirement
    }

    /// The placeholders `signatureURL` may hold.
    public static var placeholders: [String] { SignatureURLLocator.placeholders }

    /// `signatureURL` for one artifact (each value percent-encoded as a path segment), or nil
    /// when there is no template.
    public func signatureURL(modelId: String, version: String, sha256: String) -> URL? {
        signatureURL.flatMap { SignatureURLLocator.url($0, modelId: modelId, version: version, sha256: sha256) }
    }
}

/// Where a PEM text comes from: a file (resolved like the manifest's other paths) or the text
/// itself (public keys and root certificates are not secrets).
public enum PEMSource: Sendable, Hashable, CustomStringConvertible {
    /// A file, as written.
    case file(String)
    /// The PEM text.
    case inline(String)

    /// `file /etc/manashiki/key.pem` or `inline PEM`.
    public var description: String {
        switch self {
        case .file(let path): return "file \(path)"
        case .inline: return "inline PEM"
        }
    }
}

extension ModelSigningSettings {
    /// The pinned keys and roots read (files resolved against `baseDirectory`, the manifest's
    /// directory), with the section's subject binding.
    /// - Throws: `PublisherTrustError` naming the file (or `inline PEM`) and what is wrong with it.
    public func publisherTrust(baseDirectory: URL?) throws -> PublisherTrust {
        var keys: [PublisherKey] = []
        for source in self.keys {
            switch source {
            case .file(let path): keys.append(try PublisherKey(contentsOf: PathResolver.resolve(path, against: baseDirectory)))
            case .inline(let pem): keys.append(try PublisherKey(pem: pem))
            }
        }
        var roots: [PublisherRoot] = []
        for source in self.roots {
            switch source {
            case .file(let path): roots += try PublisherRoot.certificates(contentsOf: PathResolver.resolve(path, against: baseDirectory))
            case .inline(let pem): roots += try PublisherRoot.certificates(pem: pem)
            }
        }
        return PublisherTrust(keys: keys, roots: roots, subject: subject)
    }
}

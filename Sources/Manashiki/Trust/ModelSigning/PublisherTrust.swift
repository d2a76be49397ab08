import Foundation

/// The publishers an app or a manifest trusts to sign models (OpenSSF model signing): pinned
/// public keys, pinned root certificates, and what ties a signature to a model id.
///
/// ```swift
/// let trust = PublisherTrust(keys: [try PublisherKey(contentsOf: Bundle.main.url(forResource: "publisher", withExtension: "pem")!)])
/// ```
public struct PublisherTrust: Sendable, Hashable {
    /// What ties a signature, which names a file, to a model id.
    public enum SubjectBinding: String, Sendable, Hashable, CaseIterable {
        /// The signature's subject name must be the model's file name, `<modelId>.bin` (the
        /// publisher signs `model_signing sign … <modelId>.bin`), so that a signature of one
        /// model is not accepted for another model whose registry entry names the same bytes'
        /// digest. The version is not bound: any signed artifact of the model is accepted for any
        /// of its versions (TUF, `trust.tuf`, binds versions).
        case modelFile
        /// Any subject name: only the artifact's digest binds the signature (for publishers
        /// who sign files under other names). A signature made for one model is then valid for
        /// every model id the registry maps to the same bytes.
        case any
    }

    /// Pinned keys (key-mode signatures).
    public var keys: [PublisherKey]
    /// Pinned roots (certificate-mode signatures).
    public var roots: [PublisherRoot]
    /// What ties a signature to a model id. Default `.modelFile`.
    public var subject: SubjectBinding

    /// Trust in `keys` and `roots`.
    public init(keys: [PublisherKey] = [], roots: [PublisherRoot] = [], subject: SubjectBinding = .modelFile) {
        self.keys = keys
        self.roots = roots
        self.subject = subject
    }

    /// The file name a signature must name for `modelId` under `subject`, or nil when any is
    /// accepted.
    public func expectedSubjectName(for modelId: String) -> String? {
        subject == .modelFile ? ModelID.fileName(for: modelId) : nil
    }
}

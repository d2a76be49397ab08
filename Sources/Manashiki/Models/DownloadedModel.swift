import Foundation

/// A model installed on disk by `downloadModel(_:session:progress:)`.
public struct DownloadedModel: Sendable, Hashable {
    /// The model id.
    public var modelId: String
    /// Where the artifact is: `<storageDirectory>/<modelId>.bin`.
    public var localURL: URL
    /// The file's SHA-256 (64 lowercase hex), computed while downloading and checked against
    /// the registry's digest when the registry gave one.
    public var sha256: String
    /// The file's size in bytes.
    public var size: Int64
    /// The version the registry said it served, if it said.
    public var version: String?
    /// Whether the digest was checked against the registry's (false only when the registry
    /// gave no digest).
    public var verified: Bool

    /// The installed file's identity, taken from its descriptor just before the rename (the
    /// sync agent records it, so a file swapped in by someone else is noticed).
    package var fileIdentity: FileIdentity?

    /// Bytes taken over from a partial download kept by an earlier, interrupted download of
    /// the same artifact (re-hashed from disk, then continued with `Range`); 0 when every byte
    /// was transferred by this call.
    public var resumedFrom: Int64 = 0

    /// What each trust of `DownloadOptions.trust` found (who signed it: `PublisherSignatureCheck.signer(in:)`);
    /// empty when none was configured.
    public var trust: [TrustEvidence] = []

    /// What went wrong after the model was installed and verified: a trust's record of it could
    /// not be updated (`TUFTrust`'s high-water mark: a Keychain or file error, in words). The
    /// model is installed; the next download records again. Empty when nothing did.
    public var warnings: [String] = []

    /// Creates a value.
    public init(modelId: String, localURL: URL, sha256: String, size: Int64, version: String?, verified: Bool) {
        self.modelId = modelId
        self.localURL = localURL
        self.sha256 = sha256
        self.size = size
        self.version = version
        self.verified = verified
    }
}

/// The body of `GET /api/download/{modelId}`.
struct DownloadTicket: Decodable, Sendable {
    var downloadUrl: String
    var sha256: String?
    var size: Int64?
    var expiresIn: Int?
    var version: String?
}

import Foundation

/// What the caller already knows about an artifact (for example from the catalog), checked
/// against what `/api/download` serves before any byte is fetched.
///
/// The sync agent uses it so that a registry that changed between planning and downloading
/// cannot slip another version into the store.
public struct ExpectedArtifact: Sendable, Hashable {
    /// The digest the artifact must have (also enforced when the registry gives none).
    public var sha256: String?
    /// The size the artifact must have.
    public var size: Int64?
    /// The version that must be served.
    public var version: String?

    /// Creates an expectation; nil fields are not checked.
    public init(sha256: String? = nil, size: Int64? = nil, version: String? = nil) {
        self.sha256 = sha256
        self.size = size
        self.version = version
    }
}

/// Tuning for downloads. The defaults suit phones and servers alike.
public struct DownloadOptions: Sendable, Hashable {
    /// Seconds without a byte before a transfer counts as stalled and is resumed.
    public var idleTimeout: TimeInterval = 60
    /// Resumptions after transient failures (network errors, 5xx, a body cut short) per download.
    public var maxResumes = 4
    /// Fresh URLs requested after the signed URL expired (403/410) per download.
    public var maxURLRefreshes = 3
    /// Redirects followed from one signed URL.
    public var maxRedirects = 5
    /// The first pause before a resumption, doubled each time (capped at 4 s).
    public var resumeBackoff: TimeInterval = 0.25
    /// The most a whole download may take, resumptions and URL refreshes included; nil (the
    /// default) for no limit. The idle timeout already stops a stalled transfer; this also
    /// stops one that keeps trickling in too slowly to ever finish.
    public var deadline: TimeInterval?

    /// The defaults.
    public init() {}
}

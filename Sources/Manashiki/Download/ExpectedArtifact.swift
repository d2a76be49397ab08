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

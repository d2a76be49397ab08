import Foundation

/// A version that is ready to be uploaded but not yet published: the demo catalog uses it so
/// the quick start (or a test) has real bytes to send through `POST /api/uploads/model`.
public struct RegistryPendingVersion: Sendable, Hashable {
    /// The model the version belongs to.
    public var modelId: String
    /// The new version.
    public var version: String
    /// Its bytes.
    public var artifact: RegistryArtifact

    /// Creates a pending version.
    public init(modelId: String, version: String, artifact: RegistryArtifact) {
        self.modelId = modelId
        self.version = version
        self.artifact = artifact
    }
}

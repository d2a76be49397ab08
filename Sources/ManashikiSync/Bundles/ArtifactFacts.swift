import Foundation
import Manashiki

/// The parts of a registry record the planner checks before installing an artifact
/// (visibility, lifecycle, compatibility), kept with the artifact in a bundle's index, a lock
/// file and the store's state, so a plan can be made without the registry.
public struct ArtifactFacts: Sendable, Hashable, Codable {
    /// Who may download it.
    public var visibility: ModelVisibility
    /// Its lifecycle when it was recorded.
    public var lifecycle: ModelLifecycle
    /// What it runs on.
    public var compatibility: ModelCompatibility

    /// Creates facts.
    public init(visibility: ModelVisibility, lifecycle: ModelLifecycle, compatibility: ModelCompatibility) {
        self.visibility = visibility
        self.lifecycle = lifecycle
        self.compatibility = compatibility
    }

    /// The facts of a registry record.
    public init(_ record: ModelRecord) {
        self.init(visibility: record.visibility, lifecycle: record.lifecycle, compatibility: record.compatibility)
    }
}

import Foundation

/// What the agent may delete: `<valid-id>.bin` files in the store that the manifest no
/// longer lists. Nothing else in the directory is ever touched.
///
/// ```json
/// "prune": {"mode": "tracked", "maxDeletes": 10}
/// ```
public struct PrunePolicy: Sendable, Hashable {
    /// Which files are candidates.
    public enum Mode: String, Sendable, Hashable, CaseIterable {
        /// Never delete.
        case off
        /// Only models this agent installed (recorded in the state file). The default.
        case tracked
        /// Any `<valid-id>.bin` file, including ones copied in by hand.
        case all
    }

    /// Which files are candidates.
    public var mode: Mode
    /// The most files one run may delete; more refuses every prune of the run.
    public var maxDeletes: Int
    /// Whether a manifest with no models may prune (it would empty the store). Off by default:
    /// an empty list is more often a mistake than an intent.
    public var allowEmptyManifest: Bool

    /// Creates a policy; the defaults are `tracked`, 10 and false.
    public init(mode: Mode = .tracked, maxDeletes: Int = 10, allowEmptyManifest: Bool = false) {
        self.mode = mode
        self.maxDeletes = maxDeletes
        self.allowEmptyManifest = allowEmptyManifest
    }
}

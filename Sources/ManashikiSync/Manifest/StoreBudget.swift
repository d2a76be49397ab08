import Foundation

/// How much room a store's models may take (`store.budget`).
///
/// ```json
/// "budget": {"maxBytes": "6GB", "keepFreeBytes": "2GiB"}
/// ```
/// Either or both: `maxBytes` caps the store's model files together; `keepFreeBytes` keeps that
/// much free on the store's volume after a run. Sizes are byte counts or strings with a unit
/// (`ByteSize`). When required models need room, optional and on-demand models are evicted least
/// recently used first (`Planner`); when the required models alone do not fit, the plan is refused.
public struct StoreBudget: Sendable, Hashable {
    /// The most bytes the store's model files may take together; nil: no cap.
    public var maxBytes: Int64?
    /// The bytes to leave free on the store's volume; nil: no reserve (a download still needs
    /// the room it takes).
    public var keepFreeBytes: Int64?

    /// Creates a budget.
    public init(maxBytes: Int64? = nil, keepFreeBytes: Int64? = nil) {
        self.maxBytes = maxBytes
        self.keepFreeBytes = keepFreeBytes
    }

    /// The largest budget figure a manifest may give (1 PiB): anything larger is a unit mistake.
    public static let largest: Int64 = 1 << 50
}

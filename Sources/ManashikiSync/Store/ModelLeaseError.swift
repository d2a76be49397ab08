import Foundation

/// Why a lease could not be taken.
public enum ModelLeaseError: Error, Sendable, Hashable, LocalizedError {
    /// The model is not in the store: never installed, evicted, or purged by the system. For an
    /// optional or on-demand model this is not a failure: install it (`Reconciler.ensure(_:)`).
    case notInstalled(modelId: String, path: String)
    /// An eviction of the model is deleting it right now.
    case busy(modelId: String)
    /// Not a valid model id.
    case invalidModelId(String)

    /// What happened and what to do.
    public var errorDescription: String? {
        switch self {
        case .notInstalled(let id, let path):
            return "\(id) is not installed (\(path) does not exist); install it first, e.g. with Reconciler.ensure([\"\(id)\"])"
        case .busy(let id): return "\(id) is being evicted from the store; install it again with Reconciler.ensure([\"\(id)\"])"
        case .invalidModelId(let id): return "\"\(id)\" is not a valid model id"
        }
    }
}

import Foundation
import Manashiki

/// Where a store keeps what its apps use: `.manashiki/usage/usage.json` (last use of each model,
/// `StoreUsage`) with its lock, and `.manashiki/leases/<id>.lease` (one lock file per model ever
/// leased, `ModelLease`). Apart from the state file: an app records a use without waiting for a
/// sync that holds the store's lock, and `LeftoverCleaner` never touches these folders.
extension StoreLayout {
    /// `.manashiki/usage/`.
    public var usageDirectory: URL { metadataDirectory.appendingPathComponent("usage", isDirectory: true) }
    /// `.manashiki/usage/usage.json`.
    public var usageFile: URL { usageDirectory.appendingPathComponent("usage.json") }
    /// `.manashiki/usage/lock`: held while `usage.json` is read, changed and replaced.
    var usageLockFile: URL { usageDirectory.appendingPathComponent("lock") }
    /// `.manashiki/leases/`.
    public var leaseDirectory: URL { metadataDirectory.appendingPathComponent("leases", isDirectory: true) }
    /// `.manashiki/leases/<id>.lease`.
    public func leaseFile(_ modelId: String) -> URL { leaseDirectory.appendingPathComponent("\(modelId).lease") }
}

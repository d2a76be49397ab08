import Foundation
import Manashiki

/// Where a store keeps what its apps use: `.manashiki/usage/usage.json` (last use of each model,
/// `StoreUsage`) with its lock, and `.manashiki/leases/<id>.lease` (one lock file per model ever
/// leased, `ModelLease`). Apart from the state file: an app records a use without waiting for a
/// sync that holds the store's lock, and `LeftoverCleaner` never touches these folders.
extension StoreLayout {
    /// `usage`, inside the private folder.
    static let usageFolderName = "usage"
    /// `usage.json`.
    static let usageFileName = "usage.json"
    /// `leases`, inside the private folder.
    static let leasesFolderName = "leases"

    /// `.manashiki/usage/`.
    public var usageDirectory: URL { metadataDirectory.appendingPathComponent(Self.usageFolderName, isDirectory: true) }
    /// `.manashiki/usage/usage.json`.
    public var usageFile: URL { usageDirectory.appendingPathComponent(Self.usageFileName) }
    /// `.manashiki/usage/lock`: held while `usage.json` is read, changed and replaced.
    var usageLockFile: URL { usageDirectory.appendingPathComponent(Self.lockFileName) }
    /// `.manashiki/leases/`.
    public var leaseDirectory: URL { metadataDirectory.appendingPathComponent(Self.leasesFolderName, isDirectory: true) }
    /// `.manashiki/leases/<id>.lease`.
    public func leaseFile(_ modelId: String) -> URL { leaseDirectory.appendingPathComponent(Self.leaseFileName(modelId)) }
    /// `<id>.lease`.
    static func leaseFileName(_ modelId: String) -> String { "\(modelId).lease" }

    /// `.manashiki/leases/`, opened (`DirectoryHandle`; created with the store's folders when
    /// `creating`).
    func openLeases(creating: Bool) throws -> DirectoryHandle {
        try (creating ? openPreparedMetadata() : openMetadata(creating: false)).directory(Self.leasesFolderName, creating: creating)
    }

    /// `.manashiki/usage/`, opened.
    func openUsage(creating: Bool) throws -> DirectoryHandle {
        try (creating ? openPreparedMetadata() : openMetadata(creating: false)).directory(Self.usageFolderName, creating: creating)
    }
}

import Foundation
import Manashiki
import ManashikiCore

/// When each model of a store was last used: what `store.budget`'s evictions order by (least
/// recently used first). Recorded by `ModelLease` (when a lease is taken and released) and by
/// `Reconciler.ensure(_:)`; read by every sync.
///
/// On disk `.manashiki/usage/usage.json`, format version 1, replaced atomically (temp file,
/// flush, rename, flush the directory) under its own short `flock`:
/// ```json
/// {"formatVersion": 1, "models": {"whisper-small": {"lastUsed": 1764648000.5}}}
/// ```
public struct StoreUsage: Sendable, Hashable, Codable {
    /// The format this library reads and writes.
    public static let currentFormatVersion = 1

    /// One model's use.
    public struct Use: Sendable, Hashable, Codable {
        /// Seconds since 1970 (UTC) of the last use.
        public var lastUsed: Double
    }

    /// The format version (1).
    public var formatVersion: Int
    /// Uses by model id.
    public var models: [String: Use]

    /// An empty record.
    public init(models: [String: Use] = [:]) {
        self.formatVersion = Self.currentFormatVersion
        self.models = models
    }

    /// The last use of each model.
    public var lastUse: [String: Date] { models.mapValues { Date(timeIntervalSince1970: $0.lastUsed) } }

    /// The most bytes of `usage.json` read (about 60 bytes a model): a larger file is not one
    /// this library wrote, and is treated as unusable (the next recorded use rewrites it).
    static let maxBytes = 16 << 20

    /// The store's usage; empty when there is none or it cannot be read (a sync then orders
    /// evictions by the files' modification times), with a warning for an unusable file.
    public static func read(_ layout: StoreLayout) -> (usage: StoreUsage, warning: String?) {
        let data: Data
        do {
            guard let folder = try? layout.openUsage(creating: false),
                  let read = try folder.read(StoreLayout.usageFileName, limit: maxBytes) else { return (StoreUsage(), nil) }
            data = read
        } catch {
            return (StoreUsage(), "usage.json cannot be read (\(error.localizedDescription)); evictions order by file times this run, and the next recorded use rewrites it")
        }
        switch VersionedJSON.decode(StoreUsage.self, from: data, supported: currentFormatVersion) {
        case .success(let usage): return (usage, nil)
        case .failure(.newer(let version)):
            return (StoreUsage(), "usage.json was written by a newer version (format \(version)); evictions order by file times this run, and the file is left alone")
        case .failure:
            return (StoreUsage(), "usage.json cannot be read; evictions order by file times this run, and the next recorded use rewrites it")
        }
    }

    /// Records a use of `modelIds` at `date`: reads, changes and replaces the file under its lock
    /// (waiting up to `wait` for another process to finish its write). Blocks the calling
    /// thread for that long at most, and for two flushes: leases record theirs in the
    /// background instead (`ModelLease.waitForRecordedUses()`).
    /// - Throws: `APIError.fileSystem` when the folder or the file cannot be written;
    ///   `StoreUsageError` when the lock stays held or the file is of a newer format.
    public static func recordUse(of modelIds: [String], at date: Date = Date(), in layout: StoreLayout,
                                 wait: Duration = .seconds(5)) throws {
        try record(Dictionary(modelIds.map { ($0, date) }, uniquingKeysWith: max), in: layout, wait: wait)
    }

    /// Records the use of each model at its date (`recordUse(of:at:in:wait:)`).
    static func record(_ uses: [String: Date], in layout: StoreLayout, wait: Duration = .seconds(5)) throws {
        guard !uses.isEmpty else { return }
        let folder = try layout.openUsage(creating: true)
        let lock = try FileLock(StoreLayout.lockFileName, in: folder)
        defer { lock.release() }
        switch lock.lock(.exclusive, waitingUpTo: wait) {
        case .locked: break
        case .held: throw StoreUsageError.busy(path: layout.usageFile.path)
        case .unsupported: break // a file system without locks: last writer wins, which loses at most a use
        }
        var usage = StoreUsage()
        // Unreadable (too large, not a regular file, not JSON): start again.
        if let data = try? folder.read(StoreLayout.usageFileName, limit: maxBytes) {
            switch VersionedJSON.decode(StoreUsage.self, from: data, supported: currentFormatVersion) {
            case .success(let read): usage = read
            case .failure(.newer(let version)): throw StoreUsageError.newerFormat(version)
            case .failure: break
            }
        }
        for (id, date) in uses {
            usage.models[id] = Use(lastUsed: max(date.timeIntervalSince1970, usage.models[id]?.lastUsed ?? 0))
        }
        removeStaleTemporaries(folder)
        try folder.replace(StoreLayout.usageFileName, with: VersionedJSON.encode(usage, pretty: false))
    }

    /// Temporary files of a write that crashed (only the lock holder writes, so any is stale).
    static func removeStaleTemporaries(_ folder: DirectoryHandle) {
        for name in folder.names() where DurableFile.isTemporary(name) { folder.remove(name) }
    }
}

/// Why a use could not be recorded.
public enum StoreUsageError: Error, Sendable, Hashable, LocalizedError {
    /// Another process kept the usage file's lock for the whole wait.
    case busy(path: String)
    /// The usage file was written by a newer version of this library; it is left alone.
    case newerFormat(Int)

    /// What happened and what to do.
    public var errorDescription: String? {
        switch self {
        case .busy(let path): return "another process kept \(path) locked; the use was not recorded (evictions may take this model earlier than they should); try again"
        case .newerFormat(let version): return "the store's usage file was written by a newer version (format \(version); this one reads \(StoreUsage.currentFormatVersion)); upgrade this library — the file was left alone"
        }
    }
}

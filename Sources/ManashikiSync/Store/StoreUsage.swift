import Foundation
import Manashiki
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// The store's usage; empty when there is none or it cannot be read (a sync then orders
    /// evictions by the files' modification times), with a warning for an unusable file.
    public static func read(_ layout: StoreLayout) -> (usage: StoreUsage, warning: String?) {
        guard let data = FileManager.default.contents(atPath: layout.usageFile.path) else { return (StoreUsage(), nil) }
        switch VersionedJSON.decode(StoreUsage.self, from: data, supported: currentFormatVersion) {
        case .success(let usage): return (usage, nil)
        case .failure(.newer(let version)):
            return (StoreUsage(), "usage.json was written by a newer version (format \(version)); evictions order by file times this run, and the file is left alone")
        case .failure:
            return (StoreUsage(), "usage.json cannot be read; evictions order by file times this run, and the next recorded use rewrites it")
        }
    }

    /// Records a use of `modelIds` at `date`: reads, changes and replaces the file under its lock
    /// (waiting up to `wait` for another process to finish its write).
    /// - Throws: `APIError.fileSystem` when the folder or the file cannot be written;
    ///   `StoreUsageError` when the lock stays held or the file is of a newer format.
    public static func recordUse(of modelIds: [String], at date: Date = Date(), in layout: StoreLayout,
                                 wait: Duration = .seconds(5)) throws {
        guard !modelIds.isEmpty else { return }
        try FileManager.default.createDirectory(at: layout.usageDirectory, withIntermediateDirectories: true)
        let fd = try POSIX.call("open the usage lock", layout.usageLockFile.path) { open(layout.usageLockFile.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        defer { close(fd) } // releases the flock
        switch POSIX.lock(fd, waitingUpTo: wait) {
        case .locked: break
        case .held: throw StoreUsageError.busy(path: layout.usageFile.path)
        case .unsupported: break // a file system without locks: last writer wins, which loses at most a use
        }
        var usage = StoreUsage()
        if let data = FileManager.default.contents(atPath: layout.usageFile.path) {
            switch VersionedJSON.decode(StoreUsage.self, from: data, supported: currentFormatVersion) {
            case .success(let read): usage = read
            case .failure(.newer(let version)): throw StoreUsageError.newerFormat(version)
            case .failure: break // unusable: start again
            }
        }
        let seconds = date.timeIntervalSince1970
        for id in modelIds { usage.models[id] = Use(lastUsed: max(seconds, usage.models[id]?.lastUsed ?? 0)) }
        removeStaleTemporaries(layout)
        try DurableFile.replace(layout.usageFile, with: VersionedJSON.encode(usage, pretty: false))
    }

    /// Temporary files of a write that crashed (only the lock holder writes, so any is stale).
    static func removeStaleTemporaries(_ layout: StoreLayout) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: layout.usageDirectory.path)) ?? []
        for name in names where DurableFile.isTemporary(name) { unlink(layout.usageDirectory.appendingPathComponent(name).path) }
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

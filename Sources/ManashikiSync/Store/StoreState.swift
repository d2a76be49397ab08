import Foundation
import Manashiki

/// What the agent knows about a store: each installed model's version, digest and file
/// identity, and the registry records it already checked. A value type; `StateFile` persists it.
public struct StoreState: Sendable, Hashable, Codable {
    /// The state file format this library writes.
    public static let currentFormatVersion = 1

    /// One installed model.
    public struct Installed: Sendable, Hashable, Codable {
        /// The version installed.
        public var version: String
        /// The file's SHA-256 (64 lowercase hex).
        public var sha256: String
        /// The file's size in bytes.
        public var size: Int64
        /// The file's identity when it was last hashed.
        public var identity: FileIdentity
        /// The registry record's facts when it was installed (for `export`'s bundle index);
        /// nil for files adopted without a record, or recorded by an older agent.
        public var record: ArtifactFacts?

        /// Creates an entry.
        public init(version: String, sha256: String, size: Int64, identity: FileIdentity, record: ArtifactFacts? = nil) {
            self.version = version
            self.sha256 = sha256
            self.size = size
            self.identity = identity
            self.record = record
        }
    }

    /// The format version (1).
    public var formatVersion: Int
    /// Installed models by id.
    public var models: [String: Installed]
    /// Registry records already fetched, by `"<id>@<version>"`, so unchanged models are not
    /// looked up again.
    public var records: [String: ModelRecord]

    /// An empty state.
    public init(models: [String: Installed] = [:], records: [String: ModelRecord] = [:]) {
        self.formatVersion = StoreState.currentFormatVersion
        self.models = models
        self.records = records
    }

    /// The cache key of a record.
    public static func recordKey(_ modelId: String, _ version: String) -> String { "\(modelId)@\(version)" }

    /// The cached record of `modelId` at `version`.
    public func record(_ modelId: String, version: String) -> ModelRecord? {
        records[StoreState.recordKey(modelId, version)]
    }

    /// Caches `record` under its id and version.
    public mutating func cache(_ record: ModelRecord) {
        records[StoreState.recordKey(record.modelId, record.version)] = record
    }

    /// Keeps only the cached records whose `"<id>@<version>"` key is in `wanted`.
    public mutating func trimRecords(keeping wanted: Set<String>) {
        records = records.filter { wanted.contains($0.key) }
    }
}

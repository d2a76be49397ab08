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
        /// Who wants this model in a store shared by several apps (macOS outside a sandbox) or
        /// by an app and the CLI: the owners whose runs installed or kept it
        /// (`Reconciler.Options.owner`). Nil for entries written before owners were recorded;
        /// they count as the running owner's.
        public var owners: [String]?
        /// Who signed the installed file, when its publisher signature verified
        /// (`trust.modelSigning`); its `signatureSHA256` names the store's copy
        /// (`StoreLayout.signatureFile`). Nil: no publisher check ran, or the model is unsigned
        /// and its signature optional.
        public var signer: PublisherSigner?

        /// Creates an entry.
        public init(version: String, sha256: String, size: Int64, identity: FileIdentity, record: ArtifactFacts? = nil,
                    owners: [String]? = nil, signer: PublisherSigner? = nil) {
            self.version = version
            self.sha256 = sha256
            self.size = size
            self.identity = identity
            self.record = record
            self.owners = owners
            self.signer = signer
        }

        /// Whether an owner other than `owner` still wants this model (then `owner`'s prune
        /// must not delete it).
        public func isClaimed(byOtherThan owner: String) -> Bool {
            (owners ?? []).contains { $0 != owner }
        }

        /// This entry with `owner` among its owners.
        func claimed(by owner: String) -> Installed {
            var copy = self
            copy.owners = Array(Set(owners ?? []).union([owner])).sorted()
            return copy
        }

        /// This entry without `owner`'s claim (never empty: the last claim goes with the file).
        func released(by owner: String) -> Installed {
            guard let owners, owners.contains(owner), owners.count > 1 else { return self }
            var copy = self
            copy.owners = owners.filter { $0 != owner }
            return copy
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

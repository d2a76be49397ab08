import Foundation
import Manashiki

/// Whether a private model's session token can be obtained.
package enum SessionAvailability: Sendable, Hashable {
    /// A token can be obtained (it is read or minted only when the download runs).
    case available
    /// It cannot; the text says why (`environment variable MODEL_SESSION is not set`).
    case unavailable(String)
}

/// Everything the planner looks at. Build it in the shell (I/O), then plan purely.
package struct PlanInput: Sendable, Hashable {
    /// The desired state.
    package var manifest: Manifest
    /// The device to check compatibility against.
    package var device: DeviceProfile
    /// What is on disk.
    package var snapshot: StoreSnapshot
    /// The catalog (`GET /api/models`): the current version of each model.
    package var catalog: [ModelEntry] {
        didSet { catalogIndex = Self.index(catalog) }
    }
    /// `catalog` by model id, so planning stays linear in the number of models.
    private(set) var catalogIndex: [String: ModelEntry]
    /// Catalog entries the registry sent but that are invalid (bad size or digest), by model
    /// id, with what is wrong: such a model is blocked, every other model syncs.
    package var invalidCatalogEntries: [String: String]
    /// Registry records by model id, for the catalog's current versions (cached or fetched).
    package var records: [String: ModelRecord]
    /// Why a record could not be fetched, by model id.
    package var recordFailures: [String: String]
    /// Session availability by model id; a model without an entry has a session only if its
    /// spec names a source.
    package var sessions: [String: SessionAvailability]
    /// Free bytes on the store's volume, if known.
    package var freeBytes: Int64?
    /// Why this process cannot write the store (`StoreLayout.writeProblem()`), or nil.
    package var storeWriteProblem: String?
    /// Partial downloads kept in the store that nobody is writing, by model id: a download of
    /// the same artifact resumes one, so it needs room only for the remaining bytes.
    package var partials: [String: [PartialDownload]] = [:]
    /// Whether prune guards (max deletes, empty manifest) are overridden.
    package var forcePrune: Bool
    /// Who this run claims models for in a shared store (`Reconciler.Options.owner`): a model
    /// another owner still claims is never pruned.
    package var owner: String
    /// When each model was last used (`StoreUsage`), by model id: evictions take the least
    /// recently used first. A model with no recorded use counts as used when its file was written.
    package var lastUse: [String: Date] = [:]
    /// Models in use (a live process holds a `ModelLease`): never evicted.
    package var inUse: Set<String> = []
    /// Models asked for this run (`Reconciler.ensure(_:)`): installed whatever their class, and
    /// never evicted.
    package var demanded: Set<String> = []
    /// An `ensure` run: only `demanded` is installed or updated (evicting what its room needs);
    /// nothing else is downloaded, replaced or pruned.
    package var onlyDemanded = false

    /// Creates an input.
    package init(manifest: Manifest, device: DeviceProfile, snapshot: StoreSnapshot, catalog: [ModelEntry],
                invalidCatalogEntries: [String: String] = [:],
                records: [String: ModelRecord] = [:], recordFailures: [String: String] = [:],
                sessions: [String: SessionAvailability] = [:], freeBytes: Int64? = nil, forcePrune: Bool = false,
                owner: String = StoreOwner.current) {
        self.manifest = manifest
        self.device = device
        self.snapshot = snapshot
        self.catalog = catalog
        self.catalogIndex = Self.index(catalog)
        self.invalidCatalogEntries = invalidCatalogEntries
        self.records = records
        self.recordFailures = recordFailures
        self.sessions = sessions
        self.freeBytes = freeBytes
        self.forcePrune = forcePrune
        self.owner = owner
    }

    static func index(_ catalog: [ModelEntry]) -> [String: ModelEntry] {
        Dictionary(catalog.map { ($0.modelId, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

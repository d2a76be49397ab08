import Foundation
import Manashiki

/// Where a run's catalog comes from: the one place the three ways of planning differ.
///
/// | source | the catalog | record facts | the registry |
/// |---|---|---|---|
/// | `.registry` | `GET /api/models`, retried | the state's cache, else `GET /api/models/{id}` | serves every download |
/// | `.lock` (`--locked`) | the lock's artifacts, the manifest pinned to them | the lock's | asked what it serves now (`askRegistry`), so a locked artifact it no longer serves comes from a source |
/// | `.bundles` (`--offline` without a lock) | the newest artifact in the bundles' indexes satisfying each entry | the indexes' | never asked |
///
/// `--locked --offline` is `.lock` without `askRegistry`.
enum CatalogSource: Sendable {
    /// The registry's catalog.
    case registry
    /// A lock file's pinned artifacts.
    case lock(LockFile, askRegistry: Bool)
    /// The bundle sources' indexes.
    case bundles

    /// The source of a run with `options` over `manifest`.
    init(_ options: Reconciler.Options, _ manifest: Manifest) {
        if let lock = options.lock {
            self = .lock(lock, askRegistry: !options.offline && manifest.fallback == .registry)
        } else {
            self = options.offline ? .bundles : .registry
        }
    }

    /// What a source says.
    struct Catalog: Sendable {
        /// The manifest to plan (with a lock, every model pinned to its locked artifact).
        var manifest: Manifest
        /// The current artifact of each model.
        var entries: [ModelEntry] = []
        /// Entries the registry sent that are invalid.
        var rejected: [CatalogListing.Rejected] = []
        /// Record facts the source carries (a lock's, a bundle index's), by model id.
        var records: [String: ModelRecord] = [:]
        /// With a lock: the artifact the registry serves now per model (it serves only that
        /// one); nil when it is not asked or the run follows its catalog.
        var registryServes: [String: String]?
        /// Bundles whose index could not be read (offline).
        var unreadable: [String] = []
        /// What to warn about.
        var warnings: [String] = []

        /// `entries` by model id.
        var byId: [String: ModelEntry] { PlanInput.index(entries) }
    }

    /// Reads the catalog; a failure stops the run (the registry's catalog cannot be read, the
    /// lock does not match the manifest).
    func read(_ manifest: Manifest, fetcher: ArtifactFetcher, registry: any RegistryClient, retry: RetryPolicy,
              emit: @escaping @Sendable (SyncEvent) -> Void) async -> Result<Catalog, SyncFailure> {
        var catalog = Catalog(manifest: manifest)
        switch self {
        case .registry:
            do {
                let listing = try await retry.run({ try await registry.listCatalog() }, onRetry: { attempt, error, wait in
                    emit(.retrying(modelId: nil, attempt: attempt, delay: wait, reason: error.description))
                })
                catalog.entries = listing.entries
                catalog.rejected = listing.rejected
            } catch {
                return .failure(SyncFailure(error))
            }
        case .lock(let lock, let askRegistry):
            let (pinned, artifacts, differences) = SourcePlanning.locked(manifest, lock)
            guard differences.isEmpty else {
                return .failure(SyncFailure(kind: .terminal,
                    message: "the lock file does not match the manifest (\(differences.map(\.description).joined(separator: "; "))); run \(Remedy.lock) and commit the lock"))
            }
            catalog.manifest = pinned
            catalog.adopt(artifacts)
            if askRegistry {
                do {
                    let current = try await retry.run({ try await registry.listModels() })
                    catalog.registryServes = Dictionary(current.map { ($0.modelId, $0.sha256) }, uniquingKeysWith: { a, _ in a })
                } catch {
                    catalog.registryServes = [:]
                    catalog.warnings.append("the registry's catalog could not be read (\(SyncFailure(error).message)); locked models come only from the sources")
                }
            }
        case .bundles:
            var indexes: [BundleIndex] = []
            for source in fetcher.sources {
                if let oci = source.oci { // OCI: the tag's artifact, read by readIndexes() (oci-sources)
                    if let artifact = oci.artifact { indexes.append(artifact.index) } else {
                        catalog.unreadable.append("\(source.label): " + (oci.unusable.map { SyncFailure($0).message } ?? "no artifact was read"))
                    }
                    continue
                }
                guard let bundle = source.bundle else { continue }
                do { indexes.append(try BundleIndex.read(bundle)) } catch {
                    catalog.warnings.append("\(source.label) cannot be used offline: \(error)")
                    catalog.unreadable.append("\(source.label): \(error)")
                }
            }
            catalog.adopt(SourcePlanning.offlineCatalog(manifest, indexes))
        }
        return .success(catalog)
    }

    /// Why the record facts of `entry` are missing when the source does not carry them; nil
    /// for the registry, which is asked for them.
    func missingRecord(_ entry: ModelEntry) -> String? {
        let model = "\(entry.modelId) \(entry.version)"
        switch self {
        case .registry:
            return nil
        case .lock:
            return "the lock file has no record facts for \(model) (write it again with \(Remedy.lock))"
        case .bundles:
            return "the bundle's index has no record facts for \(model) (its store installed it before they were recorded: export with \(Remedy.selectLock), or from a store that synced it since)"
        }
    }
}

extension CatalogSource.Catalog {
    /// Takes pinned artifacts (a lock's, the bundles') as the catalog, with their record facts.
    mutating func adopt(_ artifacts: [PinnedArtifact]) {
        entries = artifacts.map(\.entry)
        for artifact in artifacts { if let record = artifact.modelRecord { records[artifact.modelId] = record } }
    }
}

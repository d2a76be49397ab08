import Foundation
import ManashikiCore
import Manashiki

/// The pure parts of planning with sources, locks and `--offline`: what stands in for the
/// registry's catalog, and how the plan says what cannot be satisfied and where bytes come from.
enum SourcePlanning {
    /// `manifest` with every model pinned to its locked artifact (exact version and digest),
    /// and how the lock differs from the manifest (any difference refuses a locked run).
    static func pinned(_ manifest: Manifest, to lock: LockFile) -> (Manifest, [PinnedArtifact], [LockDrift.Difference]) {
        let differences = LockDrift.manifestDifferences(lock, manifest)
        var pinned = manifest
        var artifacts: [PinnedArtifact] = []
        pinned.models = manifest.models.map { spec in
            guard let artifact = lock[spec.id] else { return spec }
            artifacts.append(artifact)
            var s = spec
            s.version = (try? VersionRequirement(parsing: artifact.version)) ?? spec.version
            s.sha256 = artifact.sha256
            return s
        }
        return (pinned, artifacts, differences)
    }

    /// For each manifest model, the newest artifact in the bundles' indexes that satisfies its
    /// version and digest pins (earlier bundles win a tie).
    static func offlineCatalog(_ manifest: Manifest, _ indexes: [BundleIndex]) -> [PinnedArtifact] {
        manifest.models.compactMap { spec in
            var best: PinnedArtifact?
            for index in indexes {
                for artifact in index.artifacts(of: spec.id) where LockResolver.unsatisfied(spec, by: artifact.entry) == nil {
                    guard let current = best else { best = artifact; continue }
                    if let a = ModelVersion(artifact.version), let b = ModelVersion(current.version), a > b { best = artifact }
                }
            }
            return best
        }
    }

    /// Rewrites what the planner said in registry terms for a run without the catalog: a model
    /// nothing offline holds is blocked (`unavailable(spec)` says why), the "catalog no longer
    /// lists" warning is dropped; and every item gets its expected `source`.
    ///
    /// A download or replacement that nothing can serve (no source holds the blob and the
    /// registry may not be used: `--offline`, `"fallback": "none"`, a locked artifact the
    /// registry no longer serves) is blocked in the plan, with `unserved(id, target)` saying
    /// why, so `plan --locked --offline --from BUNDLE` tells a build whether the bundle is
    /// complete before anything runs, instead of planning a download that must fail.
    static func adjust(_ plan: Plan, offline: Bool, unavailable: (String) -> String, source: (PlanItem) -> String?,
                       unserved: ((String, ArtifactTarget) -> (String, BlockCause.Instruction?))? = nil) -> Plan {
        var plan = plan
        plan.items = plan.items.map { item in
            var item = item
            if offline {
                switch item.action {
                case .blocked(.notInCatalog):
                    let why = unavailable(item.modelId)
                    item = PlanItem(modelId: item.modelId, action: .blocked(.unavailable(why, instruction: nil)), reason: why)
                case .blocked(.recordUnavailable(let why)):
                    item = PlanItem(modelId: item.modelId, action: .blocked(.unavailable(why, instruction: nil)), reason: item.reason, warnings: item.warnings)
                case .skip(.optional(.notInCatalog)):
                    let why = unavailable(item.modelId)
                    item = PlanItem(modelId: item.modelId, action: .skip(.optional(.unavailable(why, instruction: nil))), reason: "optional, not installed: \(why)")
                default: break
                }
                item.warnings.removeAll { $0 == "the registry's catalog no longer lists this model" }
            }
            item.source = source(item)
            if item.source == nil, let unserved {
                switch item.action {
                case .download(let target), .replace(_, let target, _):
                    let (why, instruction) = unserved(item.modelId, target)
                    item = PlanItem(modelId: item.modelId, action: .blocked(.unavailable(why, instruction: instruction)),
                                    reason: BlockCause.unavailableReason(why, instruction: instruction), warnings: item.warnings)
                default: break
                }
            }
            return item
        }
        // What is now blocked will not be fetched (the planner's sum, over what is left).
        plan.bytesToFetch = plan.items.compactMap { $0.action.target?.size }.clampedSum()
        return plan
    }
}

/// What a run's downloads need to know about sources and the registry.
struct FetchContext: Sendable {
    /// The sources.
    var fetcher: ArtifactFetcher
    /// `--offline`.
    var offline: Bool
    /// The manifest's `fallback`.
    var fallback: SourceFallback
    /// With `--locked`: the artifact the registry currently serves per model (it serves only
    /// that one); nil when following the catalog.
    var registryServes: [String: String]?
    /// Bundles whose index could not be read (offline).
    var unreadable: [String] = []
    /// What an artifact needs beyond its digest (`SyncRun+Trust.swift`); nil for nothing.
    var trust = RunTrust.none

    init(fetcher: ArtifactFetcher, offline: Bool, fallback: SourceFallback, registryServes: [String: String]? = nil, unreadable: [String] = [],
         trust: RunTrust = .none) {
        self.fetcher = fetcher
        self.offline = offline
        self.fallback = fallback
        self.registryServes = registryServes
        self.unreadable = unreadable
        self.trust = trust
    }

    /// Why `target` may not be downloaded from the registry, or nil when it may.
    func registryRefusal(_ modelId: String, _ target: ArtifactTarget) -> RegistryRefusal? {
        if offline { return RegistryRefusal(reason: "\(Remedy.offline) makes no network request, so the registry is not tried") }
        if fallback == .none {
            return RegistryRefusal(reason: "the manifest says \"fallback\": \"none\", so the registry is not tried", instruction: .addSource)
        }
        if let serves = registryServes, serves[modelId] != target.sha256 {
            return RegistryRefusal(reason: "the registry no longer serves the locked artifact (it serves \(serves[modelId].map { "sha256 \($0.prefix(12))…" } ?? "no such model"))",
                                   instruction: .addBundleOrRelock)
        }
        return nil
    }
}

/// Why the registry may not serve an artifact in this run, and what to do when that is specific.
struct RegistryRefusal: Sendable, Hashable {
    /// What keeps the registry out.
    var reason: String
    /// What to do, when the reason calls for something specific.
    var instruction: BlockCause.Instruction? = nil

    /// The reason followed by its instruction.
    var text: String { BlockCause.unavailableReason(reason, instruction: instruction) }
}

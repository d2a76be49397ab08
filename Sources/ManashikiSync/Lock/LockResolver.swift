import Foundation
import Manashiki
import ManashikiCore

/// Resolves a manifest against the registry's catalog into a lock (`manashiki-sync lock`):
/// for every model, the catalog's current artifact, which must satisfy the entry's version
/// and digest pins and the lifecycle policy, with its record's facts. Platform filters and
/// compatibility are left to the plan on each device, so one lock serves every platform.
public enum LockResolver {
    /// A model that cannot be locked.
    public struct Problem: Sendable, Hashable, CustomStringConvertible {
        /// The model id.
        public var modelId: String
        /// Why, and what to do.
        public var message: String
        /// `<id>: <message>`.
        public var description: String { "\(modelId): \(message)" }
    }

    /// Resolves `manifest` with `registry`: the lock, the required models that cannot be locked,
    /// and the optional ones left out (each with why). Throws only when the catalog cannot be read.
    public static func resolve(_ manifest: Manifest, registry: any RegistryClient, retry: RetryPolicy) async throws -> (LockFile, [Problem], [Problem]) {
        let catalog = try await retry.run({ try await registry.listModels() })
        let byId = PlanInput.index(catalog)
        var problems: [Problem] = []
        var wanted: [(ModelSpec, ModelEntry)] = []
        for spec in manifest.models {
            guard let entry = byId[spec.id] else {
                problems.append(Problem(modelId: spec.id, message: "the registry's catalog does not list this model (check the id and the key's organisation)"))
                continue
            }
            if let reason = unsatisfied(spec, by: entry) {
                problems.append(Problem(modelId: spec.id, message: reason.described("the registry serves")))
                continue
            }
            wanted.append((spec, entry))
        }
        var records: [String: Result<ModelRecord, SyncFailure>] = [:]
        await Concurrently.forEach(wanted.map(\.0.id), limit: manifest.store.concurrency, { id -> (String, Result<ModelRecord, SyncFailure>) in
            do { return (id, .success(try await retry.run({ try await registry.getModel(id) }))) } catch {
                return (id, .failure(SyncFailure(error)))
            }
        }) { records[$0.0] = $0.1 }
        var models: [PinnedArtifact] = []
        for (spec, entry) in wanted {
            switch records[spec.id] {
            case .success(let record)?:
                guard record.version == entry.version, record.sha256 == entry.sha256 else {
                    problems.append(Problem(modelId: spec.id, message: "the registry's record (\(record.version)) disagrees with its catalog (\(entry.version)); it is being updated, try again shortly"))
                    continue
                }
                let status = record.lifecycle.status
                if status == .sunset {
                    problems.append(Problem(modelId: spec.id, message: "\(entry.version) is sunset and can no longer be downloaded; move to its successor"))
                    continue
                }
                guard manifest.policies.allowedStatuses.contains(status) else {
                    let allowed = manifest.policies.allowedStatuses.map(\.rawValue).joined(separator: ", ")
                    problems.append(Problem(modelId: spec.id, message: "\(entry.version) is \(status); the policies accept \(allowed)"))
                    continue
                }
                models.append(PinnedArtifact(modelId: spec.id, version: entry.version, size: entry.size, sha256: entry.sha256, record: ArtifactFacts(record)))
            case .failure(let failure)?:
                problems.append(Problem(modelId: spec.id, message: "its registry record could not be fetched: \(failure.message)"))
            case nil:
                problems.append(Problem(modelId: spec.id, message: "its registry record was not fetched"))
            }
        }
        let optional = Set(manifest.models.filter(\.isOptional).map(\.id))
        return (LockFile(models: models), problems.filter { !optional.contains($0.modelId) }, problems.filter { optional.contains($0.modelId) })
    }

    /// Why `entry` does not satisfy `spec`, or nil.
    static func unsatisfied(_ spec: ModelSpec, by entry: ModelEntry) -> Unsatisfied? {
        if !spec.version.isSatisfied(by: entry.version) {
            return .versionOutside(entry.version, spec.version)
        }
        if let sha = spec.sha256, sha != entry.sha256 {
            return .otherThanPinned(entry.version, sha256: entry.sha256, pinned: sha)
        }
        return nil
    }

    /// Why an artifact does not satisfy a model's pins, worded by whoever reports it (the
    /// registry's catalog, or a lock file).
    enum Unsatisfied: Sendable, Hashable {
        /// The version is outside the manifest's range.
        case versionOutside(String, VersionRequirement)
        /// The version's digest is not the manifest's pinned `sha256`.
        case otherThanPinned(String, sha256: String, pinned: String)

        /// `<subject> <version>, which does not satisfy <range>` (subject: "the registry serves", "locked").
        func described(_ subject: String) -> String {
            switch self {
            case .versionOutside(let version, let range):
                return "\(subject) \(version), which does not satisfy \(range)"
            case .otherThanPinned(let version, let sha256, let pinned):
                return "\(subject) \(version) with sha256 \(sha256.prefix(12))…, not the pinned \(pinned.prefix(12))…"
            }
        }
    }
}

import Foundation
import Manashiki

/// How a lock file differs from its manifest and from the registry's catalog
/// (`manashiki-sync lock --check`). A pure function; empty means the lock is up to date.
public enum LockDrift {
    /// One difference.
    public struct Difference: Sendable, Hashable, CustomStringConvertible {
        /// The model id.
        public var modelId: String
        /// What differs, and what to do.
        public var message: String
        /// `<id>: <message>`.
        public var description: String { "\(modelId): \(message)" }
    }

    /// Differences between `lock` and `manifest`: models missing from either (an optional model
    /// may be missing from the lock), and locked artifacts the manifest's pins no longer accept.
    public static func manifestDifferences(_ lock: LockFile, _ manifest: Manifest) -> [Difference] {
        var out: [Difference] = []
        let wanted = Set(manifest.models.map(\.id))
        for spec in manifest.models {
            guard let locked = lock[spec.id] else {
                if spec.isOptional { continue } // left out when it could not be locked
                out.append(Difference(modelId: spec.id, message: "is in the manifest but not in the lock; run \(Remedy.lock)"))
                continue
            }
            if let reason = LockResolver.unsatisfied(spec, by: locked.entry) {
                out.append(Difference(modelId: spec.id, message: "the locked \(locked.version) no longer satisfies the manifest (\(reason.described("locked"))); run \(Remedy.lock)"))
            }
        }
        for locked in lock.models where !wanted.contains(locked.modelId) {
            out.append(Difference(modelId: locked.modelId, message: "is locked but no longer in the manifest; run \(Remedy.lock)"))
        }
        return out
    }

    /// Differences between `lock` and the catalog: locked artifacts the registry no longer
    /// serves (it serves only each model's current version).
    public static func catalogDifferences(_ lock: LockFile, _ catalog: [ModelEntry]) -> [Difference] {
        let byId = PlanInput.index(catalog)
        return lock.models.compactMap { locked in
            guard let entry = byId[locked.modelId] else {
                return Difference(modelId: locked.modelId, message: "the registry's catalog no longer lists it; the locked \(locked.version) can come only from a bundle or mirror")
            }
            guard entry.sha256 != locked.sha256 else { return nil }
            return Difference(modelId: locked.modelId, message: "the registry now serves \(entry.version) (sha256 \(entry.sha256.prefix(12))…); the lock pins \(locked.version) (\(locked.sha256.prefix(12))…), which the registry no longer serves — run \(Remedy.lock) to move, or keep serving \(locked.version) from a bundle (\(Remedy.export(to: nil)))")
        }
    }
}

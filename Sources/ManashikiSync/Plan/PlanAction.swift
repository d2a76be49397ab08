import Foundation
import Manashiki

/// The artifact an action will install: the catalog's current version of a model.
public struct ArtifactTarget: Sendable, Hashable {
    /// The version.
    public var version: String
    /// Its SHA-256, checked by the download.
    public var sha256: String
    /// Its size in bytes.
    public var size: Int64
    /// Whether the download needs a session token.
    public var needsSession: Bool

    /// Creates a target.
    public init(version: String, sha256: String, size: Int64, needsSession: Bool = false) {
        self.version = version
        self.sha256 = sha256
        self.size = size
        self.needsSession = needsSession
    }
}

/// Why an installed file is being replaced.
public enum ReplaceCause: Sendable, Hashable {
    /// The registry serves a newer acceptable version.
    case upgrade
    /// The manifest now asks for another version or digest than the one installed.
    case requirementChanged
    /// The file on disk is not what was installed (wrong size or digest), or cannot be vouched for.
    case corrupt(String)
}

/// Why a model is left alone.
///
/// Only entries that do not apply are skipped: a required model the run cannot deliver is
/// `.blocked` (and fails the run), never skipped.
public enum SkipCause: Sendable, Hashable {
    /// The entry does not apply to this device's platform.
    case filteredOut
    /// The manifest marks the entry `"optional": true` and the run cannot deliver it (the cause
    /// says why; for a required entry the same cause blocks the run).
    case optional(BlockCause)
    /// An on-demand model (`"class": "onDemand"`) nobody asked for: `sync` never fetches it,
    /// `ensure` does.
    case onDemand
    /// An optional model that does not fit in `store.budget`: it needs `needed` bytes and the
    /// budget leaves `available`.
    case overBudget(needed: Int64, available: Int64)
}

/// Why a model cannot be delivered, or an action cannot run, until someone does something.
public enum BlockCause: Sendable, Hashable {
    /// A private model with no usable session source.
    case sessionUnavailable(String)
    /// The registry record could not be fetched.
    case recordUnavailable(String)
    /// More prunes than `store.prune.maxDeletes` allows.
    case pruneLimit(count: Int, max: Int)
    /// Pruning with an empty model list needs `allowEmptyManifest` or a forced run.
    case emptyManifest
    /// The catalog does not list the model (a wrong id, or a key of another organisation).
    case notInCatalog
    /// The catalog lists the model with an invalid entry (the text says which field).
    case invalidCatalogEntry(String)
    /// Neither the catalog's current version nor the installed one meets the version or pin.
    case pinUnsatisfiable
    /// The catalog serves an older version than the installed one and the manifest does not pin it exactly.
    case rollbackRefused(installed: String, catalog: String)
    /// The model's lifecycle status is not accepted by the policies.
    case lifecycle(LifecycleStatus)
    /// The model is sunset.
    case sunset
    /// The model cannot run on the device (each reason typed; its `description` in words).
    case incompatible([Incompatibility])
    /// `--offline` or `--locked`: no bundle, lock or source can satisfy the entry; with the
    /// instruction that fits when there is one (else the generic advice applies).
    case unavailable(String, instruction: Instruction? = nil)
}

extension BlockCause {
    /// What to do about an `unavailable` entry, when the reason calls for something specific.
    public enum Instruction: Sendable, Hashable {
        /// `"fallback": "none"` keeps the registry out.
        case addSource
        /// A locked artifact the registry no longer serves.
        case addBundleOrRelock

        /// The instruction in words, its remedies in `wording`.
        public func text(_ wording: RemedyWording = .current) -> String {
            switch self {
            case .addSource:
                return "add a source that holds it"
            case .addBundleOrRelock:
                return "add a bundle or mirror that holds it (\(wording.text(.export(to: nil)))), or run \(wording.text(.lock)) to move on"
            }
        }
    }

    /// What separates an `unavailable` reason from its instruction in a plan item's reason.
    static let instructionSeparator = " — "

    /// `reason` followed by `instruction`, as a plan item's reason says it.
    static func unavailableReason(_ reason: String, instruction: Instruction?) -> String {
        reason + (instruction.map { instructionSeparator + $0.text() } ?? "")
    }
}

/// What the plan does with one model.
public enum PlanAction: Sendable, Hashable {
    /// Install a model that is not on disk.
    case download(ArtifactTarget)
    /// Replace an installed file (the old file stays until the new one is renamed over it).
    case replace(from: String?, to: ArtifactTarget, because: ReplaceCause)
    /// Nothing to do.
    case keep(version: String)
    /// The file is intact but the state must record it again (it was re-hashed, or adopted
    /// from a restored backup).
    case verify(version: String, sha256: String, size: Int64)
    /// Delete a `<id>.bin` the manifest no longer lists.
    case prune(version: String?)
    /// Delete an installed optional or on-demand model to stay within `store.budget` (the least
    /// recently used first; never a required model, never one in use). `size` is the bytes it
    /// frees; `lastUsed` the last recorded use, nil when none was recorded.
    case evict(version: String?, size: Int64, lastUsed: Date?)
    /// Leave alone, by design.
    case skip(SkipCause)
    /// Cannot proceed until someone acts.
    case blocked(BlockCause)

    /// Whether the action changes the store.
    public var changesStore: Bool {
        switch self {
        case .download, .replace, .verify, .prune, .evict: return true
        default: return false
        }
    }

    /// The artifact to fetch, for downloads and replacements.
    public var target: ArtifactTarget? {
        switch self {
        case .download(let t), .replace(_, let t, _): return t
        default: return nil
        }
    }

    /// A one-word name: download, replace, keep, verify, prune, evict, skip, blocked.
    public var name: String {
        switch self {
        case .download: return "download"
        case .replace: return "replace"
        case .keep: return "keep"
        case .verify: return "verify"
        case .prune: return "prune"
        case .evict: return "evict"
        case .skip: return "skip"
        case .blocked: return "blocked"
        }
    }
}

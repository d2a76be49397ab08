import Foundation
import Manashiki

/// What happened to one model in a run.
public struct ModelResult: Sendable, Equatable, CustomStringConvertible {
    /// How it ended.
    public enum Status: Sendable, Equatable {
        /// Already as wanted.
        case unchanged(version: String)
        /// Installed (it was not on disk).
        case installed(version: String)
        /// Replaced an older, unwanted or damaged file.
        case replaced(from: String?, to: String)
        /// Re-hashed, found intact and recorded.
        case verified(version: String)
        /// Deleted.
        case pruned
        /// Deleted to stay within `store.budget` (the plan's `evict`).
        case evicted
        /// Left alone by design (the plan says why).
        case skipped
        /// Could not proceed (the plan says why).
        case blocked
        /// Planned but not run (a plan refusal, an earlier failure that stops prunes, or cancellation).
        case notRun(String)
        /// Failed; the failure says whether retrying later can help.
        case failed(SyncFailure)
    }

    /// The model id.
    public var modelId: String
    /// What the plan said.
    public var planned: PlanItem
    /// How it ended.
    public var status: Status
    /// Where the installed bytes came from (`registry`, `bundle /path`, `mirror https://…`),
    /// `store` for a model kept or re-verified in place, nil otherwise.
    public var source: String?
    /// Bytes taken over from a partial download kept by an interrupted earlier run (the
    /// transfer continued from there); nil when nothing was reused.
    public var resumedFrom: Int64?
    /// The sources tried before the one that served (each `<label>: <why not>`, e.g. `mirror
    /// https://…: 404 (it does not hold the blob)`), so a model that came from the registry says
    /// why not from a mirror; nil when the first choice served.
    public var sourcesSkipped: [String]?
    /// Who signed the installed or kept file, when its publisher signature verified this run
    /// (`trust.modelSigning`); nil otherwise.
    public var signer: PublisherSigner?
    /// What each trust mechanism (`trust` in the manifest) found for the installed or kept
    /// file this run; nil when none is configured or nothing was checked.
    public var trust: [TrustEvidence]?

    /// Creates a result.
    public init(modelId: String, planned: PlanItem, status: Status) {
        self.modelId = modelId
        self.planned = planned
        self.status = status
    }

    /// Whether the model failed.
    public var failure: SyncFailure? { if case .failed(let f) = status { return f } else { return nil } }

    /// A blocked model as a terminal failure naming it and the plan's reason (`SyncReport.failures`).
    var blockedFailure: SyncFailure? {
        status == .blocked ? SyncFailure(kind: .terminal, message: description) : nil
    }

    /// Whether the store changed for this model.
    public var changedStore: Bool {
        switch status {
        case .installed, .replaced, .verified, .pruned, .evicted: return true
        default: return false
        }
    }

    /// `whisper-ja: installed 1.4.0`.
    public var description: String {
        switch status {
        case .unchanged(let v): return "\(modelId): unchanged \(v)"
        case .installed(let v): return "\(modelId): installed \(v)"
        case .replaced(let from, let to): return "\(modelId): replaced \(from ?? "unknown") → \(to)"
        case .verified(let v): return "\(modelId): verified \(v)"
        case .pruned: return "\(modelId): pruned"
        case .evicted: return "\(modelId): evicted — \(planned.reason)"
        case .skipped: return "\(modelId): skipped — \(planned.reason)"
        case .blocked: return "\(modelId): blocked — \(planned.reason)"
        case .notRun(let why): return "\(modelId): not run — \(why)"
        case .failed(let f): return "\(modelId): failed (\(f.kind.rawValue)) — \(f)"
        }
    }
}

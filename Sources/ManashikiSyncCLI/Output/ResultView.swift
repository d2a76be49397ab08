import Foundation
import ManashikiSync

/// The presentation of plan items and results shared by every renderer: one word for the
/// status, the versions, the size.
package enum ResultView {
    /// `signed (tuf)`, `signed (tuf, model-signing)`: the trust mechanisms that vouched for an
    /// installed, replaced, kept or verified model; nil when none did (no `trust` section).
    package static func trustNote(_ result: ModelResult) -> String? {
        guard let trust = result.trust, !trust.isEmpty else { return nil }
        var mechanisms: [String] = []
        for evidence in trust where !mechanisms.contains(evidence.mechanism) { mechanisms.append(evidence.mechanism) }
        return "signed (\(mechanisms.joined(separator: ", ")))"
    }

    /// `installed`, `replaced`, `unchanged`, `verified`, `pruned`, `skipped`, `blocked`,
    /// `not-run`, `failed`.
    package static func status(_ status: ModelResult.Status) -> String {
        switch status {
        case .unchanged: return "unchanged"
        case .installed: return "installed"
        case .replaced: return "replaced"
        case .verified: return "verified"
        case .pruned: return "pruned"
        case .evicted: return "evicted"
        case .skipped: return "skipped"
        case .blocked: return "blocked"
        case .notRun: return "not-run"
        case .failed: return "failed"
        }
    }

    /// The version a result ends with (or the plan's), if any.
    package static func version(_ result: ModelResult) -> String? {
        switch result.status {
        case .unchanged(let v), .installed(let v), .verified(let v): return v
        case .replaced(_, let to): return to
        default: return version(result.planned.action)
        }
    }

    /// The version replaced, if any.
    package static func fromVersion(_ result: ModelResult) -> String? {
        if case .replaced(let from, _) = result.status { return from }
        return fromVersion(result.planned.action)
    }

    /// The version an action installs or keeps.
    package static func version(_ action: PlanAction) -> String? {
        switch action {
        case .download(let t): return t.version
        case .replace(_, let t, _): return t.version
        case .keep(let v), .verify(let v, _, _): return v
        case .prune(let v), .evict(let v, _, _): return v
        default: return nil
        }
    }

    /// The version an action replaces.
    package static func fromVersion(_ action: PlanAction) -> String? {
        if case .replace(let from, _, _) = action { return from }
        return nil
    }

    /// The bytes an action downloads (or the size it records).
    package static func bytes(_ action: PlanAction) -> Int64? {
        switch action {
        case .download(let t), .replace(_, let t, _): return t.size
        case .verify(_, _, let size), .evict(_, let size, _): return size
        default: return nil
        }
    }

    /// `1.4.0`, `1.3.2 → 1.4.0`, or `-`.
    package static func versionText(from: String?, to: String?) -> String {
        switch (from, to) {
        case (let f?, let t?) where f != t: return "\(f) → \(t)"
        case (_, let t?): return t
        case (let f?, nil): return f
        default: return "-"
        }
    }

    /// The problem a result represents (failed or blocked), as (what, todo); nil otherwise.
    package static func problem(_ result: ModelResult) -> (what: String, todo: String)? {
        if let failure = result.failure { return ErrorAdvice.text(for: failure) }
        if result.status == .blocked { return ErrorAdvice.text(forBlocked: result.planned) }
        return nil
    }

    /// The counts of each status in `results`, every key present.
    package static func counts(_ results: [ModelResult]) -> [String: Int] {
        var counts: [String: Int] = [:]
        for key in ["unchanged", "installed", "replaced", "verified", "pruned", "evicted", "skipped", "blocked", "not-run", "failed"] { counts[key] = 0 }
        for r in results { counts[status(r.status), default: 0] += 1 }
        return counts
    }

    /// The kebab-case name of an outcome: `in-sync`, `changed`, `partial-failure`, `failed`,
    /// `locked`, `refused`, `cancelled`, `planned`.
    package static func outcome(_ outcome: SyncOutcome) -> String {
        switch outcome {
        case .inSync: return "in-sync"
        case .changed: return "changed"
        case .partialFailure: return "partial-failure"
        case .failed: return "failed"
        case .storeBusy: return "locked"
        case .refused: return "refused"
        case .cancelled: return "cancelled"
        case .planned: return "planned"
        }
    }
}

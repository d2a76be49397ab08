import Foundation

/// The result of a run: one overall outcome, the plan, and a per-model report.
public struct SyncReport: Sendable, Equatable {
    /// The overall outcome.
    public var outcome: SyncOutcome
    /// The plan, when the run got that far.
    public var plan: Plan?
    /// One result per plan item, in plan order.
    public var results: [ModelResult]
    /// A failure that stopped the whole run (catalog unreachable, bad key, lock…).
    public var runFailure: SyncFailure?
    /// Leftovers of crashed runs that were removed.
    public var cleanedLeftovers: [String]
    /// Bytes downloaded (from every source), not counting bytes reused from kept partials.
    public var bytesDownloaded: Int64
    /// Bytes reused from partial downloads kept by interrupted earlier runs (not downloaded again).
    public var bytesReused: Int64 = 0
    /// Bytes downloaded this run, by where they came from (`registry`, `bundle /path`,
    /// `mirror …`); they add up to `bytesDownloaded` (bytes reused from kept partials are not in it).
    public var bytesBySource: [String: Int64] = [:]
    /// Where each bucket source's credentials came from, by the source's label (`bucket
    /// s3://models/site-a/` → `environment`, `profile ci (~/.aws/credentials)`, `web identity
    /// (arn:…)`, `anonymous`…): never a secret.
    public var sourceCredentials: [String: String] = [:]
    /// Bytes re-hashed to check files that changed behind our back.
    public var bytesHashed: Int64
    /// Warnings (deprecated models, refused rollbacks, unusable state file…).
    public var warnings: [String]

    /// Creates a report.
    public init(outcome: SyncOutcome, plan: Plan? = nil, results: [ModelResult] = [], runFailure: SyncFailure? = nil,
                cleanedLeftovers: [String] = [], bytesDownloaded: Int64 = 0, bytesHashed: Int64 = 0, warnings: [String] = []) {
        self.outcome = outcome
        self.plan = plan
        self.results = results
        self.runFailure = runFailure
        self.cleanedLeftovers = cleanedLeftovers
        self.bytesDownloaded = bytesDownloaded
        self.bytesHashed = bytesHashed
        self.warnings = warnings
    }

    /// The result for `modelId`.
    public subscript(modelId: String) -> ModelResult? { results.first { $0.modelId == modelId } }

    /// Every failure, run-level first, then each model that failed or is blocked, in plan order.
    /// A blocked model (private without a session, not in the catalog, incompatible…) is a
    /// terminal failure whose message names it and says why: `<id>: blocked — <reason>`.
    public var failures: [SyncFailure] {
        (runFailure.map { [$0] } ?? []) + results.compactMap { $0.failure ?? $0.blockedFailure }
    }

    /// Whether running again later, unchanged, may succeed: every failure is retryable (or the
    /// store was locked) and nothing is blocked.
    public var isRetryable: Bool {
        if outcome == .storeBusy { return true }
        let blocked = results.contains { if case .blocked = $0.status { return true } else { return false } }
        return !failures.isEmpty && !blocked && failures.allSatisfy(\.isRetryable)
    }

    /// A one-line summary: `changed: 2 installed, 1 replaced, 0 pruned, 0 skipped, 0 failed, 0 blocked`,
    /// then what stopped the run and each failed or blocked model with its reason
    /// (`partial-failure: 1 installed, …, 1 blocked — whisper-medical-ja-fp16: blocked — …`).
    public var summary: String {
        func count(_ match: (ModelResult.Status) -> Bool) -> Int { results.filter { match($0.status) }.count }
        let installed = count { if case .installed = $0 { return true } else { return false } }
        let replaced = count { if case .replaced = $0 { return true } else { return false } }
        let pruned = count { $0 == .pruned }
        let failed = count { if case .failed = $0 { return true } else { return false } }
        let blocked = count { $0 == .blocked }
        let skipped = count { $0 == .skipped }
        let evicted = count { $0 == .evicted }
        var text = "\(outcome.rawValue): \(installed) installed, \(replaced) replaced, \(pruned) pruned, \(skipped) skipped, \(failed) failed, \(blocked) blocked"
        if evicted > 0 { text += ", \(evicted) evicted" }
        let reasons = (runFailure.map { ["\($0)"] } ?? []) + results.filter { $0.failure != nil || $0.blockedFailure != nil }.map(\.description)
        if !reasons.isEmpty { text += " — " + reasons.joined(separator: "; ") }
        return text
    }
}

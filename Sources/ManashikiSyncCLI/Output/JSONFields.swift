import Foundation
import Manashiki
import ManashikiSync

// The `--json` schema (`manashiki-sync/v1`) as types: every line's fields, their names and
// types in one place. An optional field marked `@Null` is always written (null when unknown);
// a plain optional is left out when nil (only `problems`, on manifest errors). The writer
// adds `schema`, `type` and `time` (`JSONEventWriter.emit(_:_:)`).

/// An optional written as `null` when nil (the schema writes every field).
@propertyWrapper
package struct Null<Value: Encodable & Sendable>: Encodable, Sendable {
    package var wrappedValue: Value?
    package init(wrappedValue: Value?) { self.wrappedValue = wrappedValue }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue { try container.encode(wrappedValue) } else { try container.encodeNil() }
    }
}

/// `{message, hint, kind}`: what went wrong and what to do.
package struct ErrorFields: Encodable, Sendable {
    var message: String
    @Null var hint: String?
    @Null var kind: String?

    /// The fields, each on one line.
    package init(message: String, hint: String?, kind: String?) {
        self.message = TextSanitizer.oneLine(message)
        self.hint = hint.map(TextSanitizer.oneLine)
        self.kind = kind
    }

    /// A terminal problem without advice (`error` of a failed lock or export).
    static func terminal(_ message: String?) -> ErrorFields? { message.map { ErrorFields(message: $0, hint: nil, kind: "terminal") } }
}

/// A plan: `plan` lines and the summary's `plan`.
struct PlanFields: Encodable, Sendable {
    var items: [PlanItemFields]
    var bytesToFetch: Int64
    @Null var freeBytes: Int64?
    @Null var refusal: String?
    var changesPending: Bool
    /// `store.budget`'s arithmetic; null without a budget.
    @Null var budget: BudgetFields?

    init(_ plan: Plan) {
        items = plan.items.map(PlanItemFields.init)
        bytesToFetch = plan.bytesToFetch
        freeBytes = plan.freeBytes
        refusal = plan.refusal.map { TextSanitizer.oneLine($0.description) }
        changesPending = plan.changesStore
        budget = plan.budget.map(BudgetFields.init)
    }
}

/// A plan's budget: the limits, the capacity they give, the bytes now and after, the evictions.
struct BudgetFields: Encodable, Sendable {
    @Null var maxBytes: Int64?
    @Null var keepFreeBytes: Int64?
    var capacityBytes: Int64
    var limitedBy: String
    var usedBytes: Int64
    var plannedBytes: Int64
    var evictions: Int
    var evictedBytes: Int64
    var leftOut: Int

    init(_ b: BudgetPlan) {
        maxBytes = b.budget.maxBytes
        keepFreeBytes = b.budget.keepFreeBytes
        capacityBytes = b.capacityBytes
        limitedBy = b.limitedBy.rawValue
        usedBytes = b.usedBytes
        plannedBytes = b.plannedBytes
        evictions = b.evictions
        evictedBytes = b.evictedBytes
        leftOut = b.leftOut
    }
}

/// One plan item.
struct PlanItemFields: Encodable, Sendable {
    var modelId: String
    var action: String
    @Null var version: String?
    @Null var fromVersion: String?
    @Null var bytes: Int64?
    var reason: String
    var warnings: [String]
    @Null var error: ErrorFields?
    @Null var source: String?

    init(_ item: PlanItem) {
        modelId = item.modelId
        action = item.action.name
        version = ResultView.version(item.action)
        fromVersion = ResultView.fromVersion(item.action)
        bytes = ResultView.bytes(item.action)
        reason = TextSanitizer.oneLine(item.reason)
        warnings = item.warnings.map(TextSanitizer.oneLine)
        error = ErrorAdvice.text(forBlocked: item).map { ErrorFields(message: $0.what, hint: $0.todo, kind: "terminal") }
        source = item.source
    }
}

/// One model's result: `model.finished` lines and the summary's `models`.
struct ResultFields: Encodable, Sendable {
    var modelId: String
    var status: String
    var action: String
    @Null var version: String?
    @Null var fromVersion: String?
    @Null var bytes: Int64?
    var reason: String
    @Null var error: ErrorFields?
    @Null var source: String?
    @Null var resumedFrom: Int64?
    @Null var sourcesSkipped: [String]?
    /// Who signed the installed or kept file (publisher signature, `trust.modelSigning`).
    @Null var signer: PublisherSigner?
    /// What each trust mechanism found for it (`mechanism`, `detail`, `facts`).
    @Null var trust: [TrustEvidence]?
    /// The trust that refused it, when that is the failure.
    @Null var trustRefusal: TrustRefusalFields?

    init(_ result: ModelResult) {
        modelId = result.modelId
        status = ResultView.status(result.status)
        action = result.planned.action.name
        version = ResultView.version(result)
        fromVersion = ResultView.fromVersion(result)
        bytes = ResultView.bytes(result.planned.action)
        reason = TextSanitizer.oneLine(result.planned.reason)
        if case .notRun(let why) = result.status { reason = TextSanitizer.oneLine(why) }
        error = ResultView.problem(result).map { ErrorFields(message: $0.what, hint: $0.todo, kind: result.failure?.kind.rawValue ?? "terminal") }
        source = result.source
        resumedFrom = result.resumedFrom
        sourcesSkipped = result.sourcesSkipped.map { $0.map(TextSanitizer.oneLine) }
        signer = result.signer
        trust = result.trust
        trustRefusal = result.failure?.trust.map(TrustRefusalFields.init)
    }
}

/// A trust refusal in `--json`: which mechanism, the stable reason (`signature`, `not-signed`,
/// `mismatch`, `rollback`, `expired`, `metadata`, `unavailable`), the finer problem
/// (`unknown-key`, `missing`, `certificate-expired`… for publisher signatures; the TUF
/// client's `rollback`, `threshold`, `too-large`, `malformed`, `unexpected-version`, `removed`,
/// `mismatch`, `expired`, `target-not-found`, `unavailable` when the signed metadata refused),
/// the signer the refused signature names, and the TUF role (`root`, `timestamp`, `snapshot`,
/// `targets` or a delegated role).
struct TrustRefusalFields: Encodable, Sendable {
    var mechanism: String
    var reason: String
    @Null var problem: String?
    @Null var signer: String?
    @Null var role: String?

    init(_ refusal: TrustRefusal) {
        mechanism = refusal.mechanism
        reason = refusal.reasonCode
        problem = refusal.problemCode
        signer = refusal.signer.map { TextSanitizer.oneLine($0.description) }
        role = refusal.role
    }
}

/// The models of a run's summary: results once applied, the plan's items for a dry run.
enum ModelsFields: Encodable, Sendable {
    case results([ResultFields])
    case planned([PlanItemFields])

    func encode(to encoder: any Encoder) throws {
        switch self {
        case .results(let results): try results.encode(to: encoder)
        case .planned(let items): try items.encode(to: encoder)
        }
    }
}

/// The `summary` of `plan` and `sync` (and the sync of `verify --repair`).
struct RunSummaryFields: Encodable, Sendable {
    var dryRun: Bool
    var counts: [String: Int]
    var models: ModelsFields
    var bytesDownloaded: Int64
    var bytesReused: Int64
    var bytesHashed: Int64
    var bytesBySource: [String: Int64]
    /// Where each bucket source's credentials came from, by label; never a secret. Left out
    /// when the run has no bucket source.
    var sourceCredentials: [String: String]?
    var durationSeconds: Double
    var warnings: [String]
    var cleanedLeftovers: [String]
    @Null var plan: PlanFields?
    @Null var error: ErrorFields?

    init(_ summary: RunSummary) {
        let report = summary.report
        dryRun = summary.dryRun
        counts = ResultView.counts(report.results)
        if summary.dryRun, let plan = report.plan {
            models = .planned(plan.items.map(PlanItemFields.init))
        } else {
            models = .results(report.results.map(ResultFields.init))
        }
        bytesDownloaded = report.bytesDownloaded
        bytesReused = report.bytesReused
        bytesHashed = report.bytesHashed
        bytesBySource = report.bytesBySource
        sourceCredentials = report.sourceCredentials.isEmpty ? nil : report.sourceCredentials
        durationSeconds = (summary.durationSeconds * 1000).rounded() / 1000
        warnings = report.warnings.map(TextSanitizer.oneLine)
        cleanedLeftovers = report.cleanedLeftovers
        plan = report.plan.map(PlanFields.init)
        error = report.runFailure.map { failure in
            let advice = ErrorAdvice.text(for: failure)
            return ErrorFields(message: advice.what, hint: advice.todo, kind: failure.kind.rawValue)
        }
    }
}

/// The `summary` of a command that stopped before it ran: a usage error, a manifest or key
/// problem, registry settings that cannot be used (`JSONEventWriter.stopped`).
struct StoppedSummaryFields: Encodable, Sendable {
    var error: ErrorFields
    /// The manifest's problems (manifest errors only; left out otherwise).
    var problems: [ProblemFields]?

    init(error: ErrorFields, problems: [ManifestProblem]? = nil) {
        self.error = error
        self.problems = problems?.map { ProblemFields(path: $0.path, message: $0.message, hint: $0.hint) }
    }
}

extension JSONEventWriter {
    /// Writes the `summary` of a command that stopped before it ran.
    func stopped(command: String?, outcome: String, exit: ExitCode, error: ErrorFields, problems: [ManifestProblem]? = nil) {
        summary(command: command, outcome: outcome, exit: exit, StoppedSummaryFields(error: error, problems: problems))
    }
}

/// One manifest problem.
struct ProblemFields: Encodable, Sendable {
    var path: String
    var message: String
    @Null var hint: String?
}

/// An artifact: `{modelId, version, sha256, bytes}`.
struct ArtifactFields: Encodable, Sendable {
    var modelId: String
    var version: String
    var sha256: String
    var bytes: Int64

    init(_ artifact: PinnedArtifact) {
        modelId = artifact.modelId
        version = artifact.version
        sha256 = artifact.sha256
        bytes = artifact.size
    }
}

/// `{modelId, message}`: a model export could not include, a lock difference.
struct ModelMessageFields: Encodable, Sendable {
    var modelId: String
    var message: String

    init(modelId: String, message: String) {
        self.modelId = modelId
        self.message = TextSanitizer.oneLine(message)
    }
}

/// One kept partial download: `{modelId, bytes, ageSeconds, inUse}`.
struct PartialFields: Encodable, Sendable {
    var modelId: String
    var bytes: Int64
    var ageSeconds: Int
    var inUse: Bool
}

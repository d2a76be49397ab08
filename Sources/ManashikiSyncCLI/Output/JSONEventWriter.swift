import Foundation
import ManashikiSync

/// `--json`: one JSON object per line on stdout (NDJSON), schema `manashiki-sync/v1`.
///
/// Every line has `schema`, `type` and `time` (ISO 8601, UTC). Types: `run.started`,
/// `leftovers.cleaned`, `plan`, `model.started`, `model.progress` (at most one per model every
/// half second, plus the last), `model.retrying`, `model.finished`, `verify.file`, and last
/// `summary`. Consumers must ignore unknown types and fields (new ones may be added in v1).
package final class JSONEventWriter: RunRenderer, @unchecked Sendable {
    /// The schema name every line carries.
    package static let schema = "manashiki-sync/v1"
    /// The shortest interval between two progress lines of one model, in seconds.
    package static let progressInterval = 0.5

    private let output: any TextOutput
    private let now: @Sendable () -> Double
    private let date: @Sendable () -> Date
    private let lock = NSLock()
    private var lastProgress: [String: Double] = [:]
    private var expectedBytes: [String: Int64] = [:]

    /// A writer on `output` (stdout).
    package init(output: any TextOutput, now: @escaping @Sendable () -> Double, date: @escaping @Sendable () -> Date) {
        self.output = output
        self.now = now
        self.date = date
    }

    /// A writer on the console's stdout.
    package convenience init(console: Console) { self.init(output: console.out, now: console.now, date: console.date) }

    /// Writes one line of `type` with `fields`.
    package func emit(_ type: String, _ fields: [String: Any?]) {
        var object: [String: Any] = ["schema": Self.schema, "type": type, "time": Self.timestamp(date())]
        for (key, value) in fields { object[key] = Self.plain(value) }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        lock.lock(); defer { lock.unlock() }
        output.write(String(decoding: data, as: UTF8.self) + "\n")
    }

    /// Writes the event as a line (progress throttled).
    package func handle(_ event: SyncEvent) {
        switch event {
        case .cleanedLeftovers(let files):
            emit("leftovers.cleaned", ["files": files])
        case .planReady(let plan):
            emit("plan", Self.planFields(plan))
        case .modelStarted(let id, let action):
            lock.lock()
            expectedBytes[id] = action.target?.size
            lock.unlock()
            emit("model.started", ["modelId": id, "action": action.name, "version": ResultView.version(action),
                                   "fromVersion": ResultView.fromVersion(action), "bytes": ResultView.bytes(action)])
        case .progress(let id, let written, let total):
            let t = now()
            lock.lock()
            let last = lastProgress[id]
            let total = total ?? expectedBytes[id]
            let due = last == nil || t - last! >= Self.progressInterval || (total != nil && written >= total!)
            if due { lastProgress[id] = t }
            lock.unlock()
            if due { emit("model.progress", ["modelId": id, "bytesWritten": written, "totalBytes": total]) }
        case .resumed(let id, let kept, let total):
            emit("model.resumed", ["modelId": id, "bytesKept": kept, "totalBytes": total])
        case .waitingForNetwork(let id):
            emit("model.waiting", ["modelId": id, "reason": "network"])
        case .retrying(let id, let attempt, let delay, let reason):
            emit("model.retrying", ["modelId": id, "attempt": attempt, "delaySeconds": Self.seconds(delay),
                                    "reason": TextSanitizer.oneLine(reason)])
        case .modelFinished(let result):
            emit("model.finished", Self.resultFields(result))
        case .finished:
            break
        }
    }

    /// Writes the `summary` line.
    package func finish(_ summary: RunSummary) {
        let report = summary.report
        var fields: [String: Any?] = [
            "command": summary.command, "outcome": summary.outcome, "exitCode": Int(summary.exitCode.rawValue),
            "exitName": summary.exitCode.name, "dryRun": summary.dryRun,
            "counts": ResultView.counts(report.results), "models": report.results.map(Self.resultFields),
            "bytesDownloaded": report.bytesDownloaded, "bytesReused": report.bytesReused, "bytesHashed": report.bytesHashed,
            "bytesBySource": report.bytesBySource.mapValues { NSNumber(value: $0) },
            "durationSeconds": (summary.durationSeconds * 1000).rounded() / 1000,
            "warnings": report.warnings.map(TextSanitizer.oneLine), "cleanedLeftovers": report.cleanedLeftovers,
            "plan": report.plan.map(Self.planFields), "error": nil,
        ]
        if summary.dryRun, let plan = report.plan {
            fields["models"] = plan.items.map(Self.planItemFields)
        }
        if let failure = report.runFailure {
            let advice = ErrorAdvice.text(for: failure)
            fields["error"] = Self.errorFields(message: advice.what, hint: advice.todo, kind: failure.kind.rawValue)
        }
        emit("summary", fields)
    }

    // MARK: - Field builders

    /// `{message, hint, kind}`.
    static func errorFields(message: String, hint: String?, kind: String?) -> [String: Any?] {
        ["message": TextSanitizer.oneLine(message), "hint": hint.map(TextSanitizer.oneLine), "kind": kind]
    }

    /// A plan as fields.
    static func planFields(_ plan: Plan) -> [String: Any?] {
        ["items": plan.items.map(planItemFields), "bytesToFetch": plan.bytesToFetch, "freeBytes": plan.freeBytes,
         "refusal": plan.refusal.map { TextSanitizer.oneLine($0.description) }, "changesPending": plan.changesStore]
    }

    /// A plan item as fields.
    static func planItemFields(_ item: PlanItem) -> [String: Any?] {
        var fields: [String: Any?] = [
            "modelId": item.modelId, "action": item.action.name, "version": ResultView.version(item.action),
            "fromVersion": ResultView.fromVersion(item.action), "bytes": ResultView.bytes(item.action),
            "reason": TextSanitizer.oneLine(item.reason), "warnings": item.warnings.map(TextSanitizer.oneLine), "error": nil,
            "source": item.source,
        ]
        if let advice = ErrorAdvice.text(forBlocked: item) {
            fields["error"] = errorFields(message: advice.what, hint: advice.todo, kind: "terminal")
        }
        return fields
    }

    /// A result as fields.
    static func resultFields(_ result: ModelResult) -> [String: Any?] {
        var fields: [String: Any?] = [
            "modelId": result.modelId, "status": ResultView.status(result.status), "action": result.planned.action.name,
            "version": ResultView.version(result), "fromVersion": ResultView.fromVersion(result),
            "bytes": ResultView.bytes(result.planned.action), "reason": TextSanitizer.oneLine(result.planned.reason), "error": nil,
            "source": result.source, "resumedFrom": result.resumedFrom,
            "sourcesSkipped": result.sourcesSkipped.map { $0.map(TextSanitizer.oneLine) },
        ]
        if case .notRun(let why) = result.status { fields["reason"] = TextSanitizer.oneLine(why) }
        if let problem = ResultView.problem(result) {
            fields["error"] = errorFields(message: problem.what, hint: problem.todo, kind: result.failure?.kind.rawValue ?? "terminal")
        }
        return fields
    }

    // MARK: - Values

    /// Seconds of a duration, as a number.
    static func seconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return Double(s) + Double(atto) / 1e18
    }

    /// `2026-11-29T16:00:00.123Z`.
    static func timestamp(_ date: Date) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: date)
    }

    /// Optionals to `NSNull`, nested dictionaries and arrays cleaned the same way.
    static func plain(_ value: Any?) -> Any {
        guard let value else { return NSNull() }
        if let optional = value as? OptionalProtocol { return optional.unwrapped.map(plain) ?? NSNull() }
        if let dict = value as? [String: Any?] { return dict.mapValues(plain) }
        if let list = value as? [[String: Any?]] { return list.map { $0.mapValues(plain) } }
        if let int64 = value as? Int64 { return NSNumber(value: int64) }
        return value
    }
}

/// Lets `plain(_:)` see through doubly wrapped optionals (`Any?` holding an `Int64?`).
protocol OptionalProtocol { var unwrapped: Any? { get } }
extension Optional: OptionalProtocol {
    var unwrapped: Any? { self.map { $0 as Any } }
}

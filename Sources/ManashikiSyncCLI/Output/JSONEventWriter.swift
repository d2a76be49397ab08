import Foundation
import ManashikiSync
import ManashikiCore

/// `--json`: one JSON object per line on stdout (NDJSON), schema `manashiki-sync/v1`.
///
/// Every line has `schema`, `type` and `time` (ISO 8601, UTC). Types: `run.started`,
/// `leftovers.cleaned`, `plan`, `model.started`, `model.progress` (at most one per model every
/// half second, plus the last), `model.retrying`, `model.finished`, `verify.file`, and last
/// `summary`. Consumers must ignore unknown types and fields (new ones may be added in v1).
package final class JSONEventWriter: RunRenderer, Sendable {
    /// The schema name every line carries.
    package static let schema = "manashiki-sync/v1"
    /// The shortest interval between two progress lines of one model, in seconds.
    package static let progressInterval = 0.5

    private let output: any TextOutput
    private let now: @Sendable () -> Double
    private let date: @Sendable () -> Date
    /// Lines are written whole, one at a time.
    private let lock = Locked(())
    private let progress = Locked(ProgressThrottle())

    /// A writer on `output` (stdout).
    package init(output: any TextOutput, now: @escaping @Sendable () -> Double, date: @escaping @Sendable () -> Date) {
        self.output = output
        self.now = now
        self.date = date
    }

    /// A writer on the console's stdout.
    package convenience init(console: Console) { self.init(output: console.out, now: console.now, date: console.date) }

    /// Writes one line of `type` with `fields` (one of the `…Fields` types of the schema).
    ///
    /// The fields are encoded with `JSONEncoder`, then written with `JSONSerialization`'s sorted
    /// keys, the schema's key order since v1 (numeric, case-insensitive: `JSONEncoder` sorts by
    /// code point, which orders `mirror http://h:443` and `mirror http://h:80` in
    /// `bytesBySource` the other way round).
    package func emit(_ type: String, _ fields: some Encodable) {
        guard let object = Self.object(fields) else { return }
        write(type, object)
    }

    /// Writes the `summary` line of every command: `command` (null when the command line named
    /// none), `outcome`, `exitCode` and `exitName`, the fields every summary has, beside
    /// `fields`, the command's own (which must not have those keys).
    package func summary(command: String?, outcome: String, exit: ExitCode, _ fields: some Encodable) {
        guard var object = Self.object(fields) else { return }
        object["command"] = command ?? NSNull()
        object["outcome"] = outcome
        object["exitCode"] = Int(exit.rawValue)
        object["exitName"] = exit.name
        write("summary", object)
    }

    /// `fields` as a JSON object.
    private static func object(_ fields: some Encodable) -> [String: Any]? {
        guard let encoded = try? JSONEncoder().encode(fields) else { return nil }
        return (try? JSONSerialization.jsonObject(with: encoded)) as? [String: Any]
    }

    /// Writes `object` as one line of `type`, with the schema and the time.
    private func write(_ type: String, _ object: [String: Any]) {
        var object = object
        object["schema"] = Self.schema
        object["type"] = type
        object["time"] = Self.timestamp(date())
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        lock.withLock { _ in output.write(String(decoding: data, as: UTF8.self) + "\n") }
    }

    /// Writes the event as a line (progress throttled).
    package func handle(_ event: SyncEvent) {
        switch event {
        case .cleanedLeftovers(let files):
            emit("leftovers.cleaned", ["files": files])
        case .planReady(let plan):
            emit("plan", PlanFields(plan))
        case .modelStarted(let id, let action):
            progress.withLock { $0.expected[id] = action.target?.size }
            emit("model.started", StartedFields(modelId: id, action: action.name, version: ResultView.version(action),
                                                 fromVersion: ResultView.fromVersion(action), bytes: ResultView.bytes(action)))
        case .progress(let id, let written, let total):
            let t = now()
            let (due, total) = progress.withLock { p -> (Bool, Int64?) in
                let total = total ?? p.expected[id]
                let due = p.last[id].map { t - $0 >= Self.progressInterval } ?? true || (total.map { written >= $0 } ?? false)
                if due { p.last[id] = t }
                return (due, total)
            }
            if due { emit("model.progress", ProgressFields(modelId: id, bytesWritten: written, totalBytes: total)) }
        case .resumed(let id, let kept, let total):
            emit("model.resumed", ResumedFields(modelId: id, bytesKept: kept, totalBytes: total))
        case .waitingForNetwork(let id):
            emit("model.waiting", WaitingFields(modelId: id, reason: "network"))
        case .retrying(let id, let attempt, let delay, let reason):
            emit("model.retrying", RetryingFields(modelId: id, attempt: attempt, delaySeconds: Self.seconds(delay),
                                                   reason: TextSanitizer.oneLine(reason)))
        case .modelFinished(let result):
            emit("model.finished", ResultFields(result))
        case .finished:
            break
        }
    }

    /// Writes the `summary` line.
    package func finish(_ summary: RunSummary) {
        self.summary(command: summary.command, outcome: summary.outcome, exit: summary.exitCode, RunSummaryFields(summary))
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
}

/// When each model's last progress line was written, and the sizes the plan expects.
private struct ProgressThrottle {
    var last: [String: Double] = [:]
    var expected: [String: Int64] = [:]
}

/// `model.started`.
private struct StartedFields: Encodable {
    var modelId: String
    var action: String
    @Null var version: String?
    @Null var fromVersion: String?
    @Null var bytes: Int64?
}

/// `model.progress`.
private struct ProgressFields: Encodable {
    var modelId: String
    var bytesWritten: Int64
    @Null var totalBytes: Int64?
}

/// `model.resumed`.
private struct ResumedFields: Encodable {
    var modelId: String
    var bytesKept: Int64
    @Null var totalBytes: Int64?
}

/// `model.waiting`: a transfer waits for a network its policy allows (`reason` is `network`).
private struct WaitingFields: Encodable {
    var modelId: String
    var reason: String
}

/// `model.retrying` (`modelId` null for the catalog).
private struct RetryingFields: Encodable {
    @Null var modelId: String?
    var attempt: Int
    var delaySeconds: Double
    var reason: String
}

import Foundation
import ManashikiSync
import ManashikiCore

/// Output for logs (cron, journald, CI): whole lines, no control characters, at most one
/// progress line per model every `progressInterval` seconds.
package final class PlainRenderer: RunRenderer, @unchecked Sendable {
    /// The shortest interval between two progress lines of one model, in seconds.
    package static let defaultProgressInterval = 5.0

    private let console: Console
    private let verbosity: GlobalOptions.Verbosity
    private let progressInterval: Double
    private let dryRun: Bool
    /// When each model started and last printed a line, and the bytes each resumed download
    /// kept (not counted in its rate). Its lock also keeps one event's lines together.
    private let times = Locked(Times())

    private struct Times {
        var started: [String: Double] = [:]
        var lastLine: [String: Double] = [:]
        var resumedBytes: [String: Int64] = [:]
    }

    /// A renderer on `console.out`.
    /// With `dryRun` the plan is printed once, as a table, at the end.
    package init(console: Console, verbosity: GlobalOptions.Verbosity, dryRun: Bool = false,
                progressInterval: Double = PlainRenderer.defaultProgressInterval) {
        self.console = console
        self.dryRun = dryRun
        self.verbosity = verbosity
        self.progressInterval = progressInterval
    }

    private func say(_ text: String) {
        console.line(TextSanitizer.oneLine(text))
    }

    /// Writes the lines an event deserves.
    package func handle(_ event: SyncEvent) {
        guard verbosity > .quiet else { return }
        times.withLock { write(event, &$0) }
    }

    private func write(_ event: SyncEvent, _ times: inout Times) {
        switch event {
        case .cleanedLeftovers(let files):
            say("removed \(files.count) leftover file(s) of an interrupted run: \(files.joined(separator: ", "))")
        case .planReady(let plan):
            if dryRun { return }
            say(SummaryTable.planLine(plan))
            if let budget = SummaryTable.budgetLine(plan) { say(budget) }
            for item in plan.items where verbosity == .verbose || item.action.changesStore {
                say("  \(item.modelId): \(item.action.name) \(ResultView.versionText(from: ResultView.fromVersion(item.action), to: ResultView.version(item.action))) — \(item.reason)")
            }
        case .modelStarted(let id, let action):
            times.started[id] = console.now()
            times.lastLine[id] = console.now()
            if verbosity == .verbose {
                let size = ResultView.bytes(action).map { " (\(ByteFormat.bytes($0)))" } ?? ""
                say("\(id): \(action.name) \(ResultView.version(action) ?? "")\(size) started")
            }
        case .progress(let id, let written, let total):
            let now = console.now()
            guard now - (times.lastLine[id] ?? now) >= progressInterval else { return }
            times.lastLine[id] = now
            let elapsed = now - (times.started[id] ?? now)
            let rate = elapsed > 0 ? Double(written - (times.resumedBytes[id] ?? 0)) / elapsed : 0
            if let total, total > 0 {
                let eta = rate > 0 ? DurationText.approximate(Double(total - written) / rate) : "-"
                say("\(id): \(Int(Double(written) * 100 / Double(total)))% — \(ByteFormat.bytes(written)) of \(ByteFormat.bytes(total)), \(ByteFormat.rate(rate)), ETA \(eta)")
            } else {
                say("\(id): \(ByteFormat.bytes(written)) so far, \(ByteFormat.rate(rate))")
            }
        case .resumed(let id, let kept, let total):
            times.resumedBytes[id] = kept
            say("\(id): \(Self.resumeText(kept: kept, total: total))")
        case .waitingForNetwork(let id):
            say("\(id): \(Self.waitingText)")
        case .retrying(let id, let attempt, let delay, let reason):
            say("\(id ?? "catalog"): attempt \(attempt) failed (\(reason)); retrying in \(DurationText.approximate(JSONEventWriter.seconds(delay)))")
        case .modelFinished(let result):
            switch result.status {
            case .unchanged, .skipped: if verbosity < .verbose { return }
            default: break
            }
            say(Self.resultLine(result, seconds: times.started[result.modelId].map { console.now() - $0 }))
        case .finished:
            break
        }
    }

    /// `resuming: 8.4 MiB of 12.0 MiB kept from an interrupted download`.
    static func resumeText(kept: Int64, total: Int64?) -> String {
        "resuming: \(ByteFormat.bytes(kept))\(total.map { " of \(ByteFormat.bytes($0))" } ?? "") kept from an interrupted download"
    }

    /// What a download waiting for a network shows.
    static let waitingText = "waiting for a network the policy allows (policies.network); it continues when one appears (policies.downloadTimeoutSeconds bounds the wait)"

    /// `id: installed 1.4.0 (4.0 MiB in 2s)`.
    static func resultLine(_ r: ModelResult, seconds: Double?) -> String {
        let version = ResultView.versionText(from: ResultView.fromVersion(r), to: ResultView.version(r))
        var text = "\(r.modelId): \(ResultView.status(r.status))"
        switch r.status {
        case .installed, .replaced:
            text += " \(version)"
            if let bytes = ResultView.bytes(r.planned.action) {
                text += " (\(ByteFormat.bytes(bytes))\(seconds.map { " in \(DurationText.approximate($0))" } ?? ""))"
            }
            if let source = r.source, source != "registry" { text += " from \(source)" }
        case .unchanged, .verified: text += " \(version)"
        case .skipped, .blocked, .evicted: text += " — \(r.planned.reason)"
        case .notRun(let why): text += " — \(why)"
        case .failed(let f): text += " — \(f.description)"
        case .pruned: break
        }
        if let note = ResultView.trustNote(r) { text += ", \(note)" }
        return text
    }

    /// The summary line (and, for dry runs, the plan table).
    package func finish(_ summary: RunSummary) {
        guard verbosity > .quiet else { return }
        times.withLock { _ in
            if summary.dryRun, let plan = summary.report.plan {
                SummaryTable.plan(plan, width: 200).forEach(say)
                say(SummaryTable.planLine(plan))
                if let budget = SummaryTable.budgetLine(plan) { say(budget) }
            }
            say(SummaryTable.summaryLine(summary))
        }
    }
}

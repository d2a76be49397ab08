import Foundation
import ManashikiSync
import ManashikiCore

/// The end of a `plan` or `sync` run, as every renderer needs it.
package struct RunSummary: Sendable {
    /// `plan` or `sync`.
    package var command: String
    /// The reconciler's report.
    package var report: SyncReport
    /// The exit code the run ends with.
    package var exitCode: ExitCode
    /// The outcome word shown to people and in JSON (`in-sync`, `changes-pending`…).
    package var outcome: String
    /// Seconds the run took.
    package var durationSeconds: Double
    /// Whether nothing was applied (`plan`, `sync --dry-run`).
    package var dryRun: Bool

    /// Creates a summary.
    package init(command: String, report: SyncReport, exitCode: ExitCode, outcome: String, durationSeconds: Double, dryRun: Bool) {
        self.command = command
        self.report = report
        self.exitCode = exitCode
        self.outcome = outcome
        self.durationSeconds = durationSeconds
        self.dryRun = dryRun
    }
}

/// Receives a run's events as they happen, then its summary, and writes them out. Events arrive
/// from several tasks at once: implementations serialise internally.
package protocol RunRenderer: Sendable {
    /// One event.
    func handle(_ event: SyncEvent)
    /// The end of the run.
    func finish(_ summary: RunSummary)
}

/// Sends every event to several renderers, in order.
package struct RendererGroup: RunRenderer {
    /// The renderers.
    package let renderers: [any RunRenderer]

    /// A group of `renderers`.
    package init(_ renderers: [any RunRenderer]) { self.renderers = renderers }

    /// Forwards `event`.
    package func handle(_ event: SyncEvent) { renderers.forEach { $0.handle(event) } }

    /// Forwards `summary`.
    package func finish(_ summary: RunSummary) { renderers.forEach { $0.finish(summary) } }
}

/// Writes one stderr line per problem as soon as it happens (a failed or blocked model), then
/// the run-level failure and the warnings at the end. Used in every output mode.
package final class ProblemReporter: RunRenderer, @unchecked Sendable {
    private let console: Console
    private let showWarnings: Bool
    /// Models already reported, and those whose work a signal cancelled (one line for them
    /// all at the end, not an error each).
    private let seen = Locked<(reported: Set<String>, cancelled: Set<String>)>(([], []))

    /// A reporter writing to `console.err`; warnings are left out when `showWarnings` is false
    /// (`--quiet`).
    package init(console: Console, showWarnings: Bool = true) {
        self.console = console
        self.showWarnings = showWarnings
    }

    /// Reports failed and blocked models.
    package func handle(_ event: SyncEvent) {
        guard case .modelFinished(let result) = event, let problem = ResultView.problem(result) else { return }
        let isCancellation = result.failure?.isCancellation ?? false
        let fresh = seen.withLock { seen in
            if isCancellation { seen.cancelled.insert(result.modelId) }
            return seen.reported.insert(result.modelId).inserted
        }
        if fresh && !isCancellation { console.error(ErrorAdvice.line(modelId: result.modelId, what: problem.what, todo: problem.todo)) }
    }

    /// Reports problems not seen as events (dry runs), the run failure and the warnings.
    package func finish(_ summary: RunSummary) {
        let report = summary.report
        if summary.dryRun, let plan = report.plan {
            for item in plan.items {
                guard let advice = ErrorAdvice.text(forBlocked: item) else { continue }
                console.error(ErrorAdvice.line(modelId: item.modelId, what: advice.what, todo: advice.todo))
            }
        } else {
            for result in report.results { handle(.modelFinished(result)) }
        }
        if report.outcome == .cancelled {
            // A stop (`systemctl stop`, a pod's grace period, Ctrl-C) is not a model failure.
            let count = seen.withLock { $0.cancelled.count }
            let what = count == 0 ? "the run was stopped" : "\(count) download\(count == 1 ? "" : "s") cancelled"
            console.err.write("manashiki-sync: interrupted: \(what); nothing half-written was installed, partial downloads are kept for the next run to resume\n")
        }
        if let failure = report.runFailure, report.outcome != .cancelled {
            let advice = ErrorAdvice.text(for: failure)
            console.error(ErrorAdvice.line(modelId: nil, what: advice.what, todo: report.outcome == .storeBusy
                ? "another manashiki-sync is running on this store; this run exits 75 and the next one will proceed (or raise --lock-timeout)"
                : advice.todo))
        }
        if summary.dryRun, let refusal = report.plan?.refusal { console.error(refusal.description) }
        if showWarnings { for warning in report.warnings { console.warning(warning) } }
    }
}

/// Forwards events but not the summary.
package struct EventsOnlyRenderer: RunRenderer {
    /// The renderer events go to.
    package let base: any RunRenderer

    /// Wraps `base`.
    package init(base: any RunRenderer) { self.base = base }

    /// Forwards `event`.
    package func handle(_ event: SyncEvent) { base.handle(event) }

    /// Does nothing.
    package func finish(_ summary: RunSummary) {}
}

import Foundation
import ManashikiSync
import ManashikiCore

/// The live display on a terminal: finished models scroll up as permanent lines; below them,
/// one bar per model in flight (bytes, rate, ETA) and a total line, redrawn at most ten times
/// a second. A summary table ends the run.
package final class ProgressRenderer: RunRenderer, Sendable {
    private let verbosity: GlobalOptions.Verbosity
    /// The display's state; its lock also keeps one redraw whole.
    private let display: Locked<ProgressDisplay>

    /// A renderer on `console.out`; colours follow `NO_COLOR`.
    package init(console: Console, verbosity: GlobalOptions.Verbosity, dryRun: Bool = false) {
        self.verbosity = verbosity
        self.display = Locked(ProgressDisplay(console: console, verbosity: verbosity, dryRun: dryRun))
    }

    /// Updates the display.
    package func handle(_ event: SyncEvent) {
        guard verbosity > .quiet else { return }
        display.withLock { $0.handle(event) }
    }

    /// Clears the live area and prints the summary table and line.
    package func finish(_ summary: RunSummary) {
        guard verbosity > .quiet else { return }
        display.withLock { $0.finish(summary) }
    }

    /// `line` cut to `width` visible characters; colour escape sequences do not count and the
    /// colour is reset after a cut.
    static func fit(_ line: String, width: Int) -> String { ProgressDisplay.fit(line, width: width) }
}

/// What `ProgressRenderer` shows and has drawn.
private struct ProgressDisplay {
    private struct Active {
        var action: PlanAction
        var written: Int64 = 0
        /// Bytes kept from an interrupted download (not counted in the rate).
        var kept: Int64 = 0
        var total: Int64?
        var start: Double
    }

    private let console: Console
    private let verbosity: GlobalOptions.Verbosity
    private let dryRun: Bool
    private let color: Bool
    private var order: [String] = []
    private var active: [String: Active] = [:]
    private var finishedBytes: Int64 = 0
    private var totalBytes: Int64 = 0
    private var totalModels = 0
    private var doneModels = 0
    private var firstStart: Double?
    private var drawnLines = 0
    private var lastDraw = -Double.infinity
    private var pending: [String] = []

    init(console: Console, verbosity: GlobalOptions.Verbosity, dryRun: Bool) {
        self.console = console
        self.verbosity = verbosity
        self.dryRun = dryRun
        self.color = console.colorAllowed
    }

    private func paint(_ text: String, _ code: String) -> String { color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text }

    /// Updates the display.
    mutating func handle(_ event: SyncEvent) {
        var force = false
        switch event {
        case .cleanedLeftovers(let files):
            pending.append("removed \(files.count) leftover file(s) of an interrupted run")
        case .planReady(let plan):
            totalBytes = plan.bytesToFetch
            totalModels = plan.items.filter { $0.action.target != nil }.count
            if !dryRun {
                pending.append(paint(SummaryTable.planLine(plan), "1"))
                if let budget = SummaryTable.budgetLine(plan) { pending.append(budget) }
            }
            force = true
        case .modelStarted(let id, let action):
            let now = console.now()
            if firstStart == nil { firstStart = now }
            if action.target != nil {
                active[id] = Active(action: action, total: action.target?.size, start: now)
                order.append(id)
            }
            force = true
        case .resumed(let id, let kept, let total):
            active[id]?.kept = kept
            active[id]?.written = kept
            pending.append("\(id): \(PlainRenderer.resumeText(kept: kept, total: total))")
            force = true
        case .waitingForNetwork(let id):
            pending.append("\(id): \(PlainRenderer.waitingText)")
            force = true
        case .progress(let id, let written, let total):
            active[id]?.written = written
            if let total { active[id]?.total = total }
        case .retrying(let id, let attempt, let delay, let reason):
            pending.append(paint("\(id ?? "catalog"): attempt \(attempt) failed (\(TextSanitizer.oneLine(reason))); retrying in \(ByteFormat.duration(JSONEventWriter.seconds(delay)))", "33"))
            force = true
        case .modelFinished(let result):
            if let a = active.removeValue(forKey: result.modelId) {
                order.removeAll { $0 == result.modelId }
                doneModels += 1
                if result.failure == nil { finishedBytes += a.total ?? a.written }
            }
            if let line = finishedLine(result) { pending.append(line) }
            force = true
        case .finished:
            break
        }
        draw(force: force)
    }

    private func finishedLine(_ r: ModelResult) -> String? {
        let text = TextSanitizer.oneLine(PlainRenderer.resultLine(r, seconds: nil))
        switch r.status {
        case .installed, .replaced, .verified, .pruned, .evicted: return paint("✓ ", "32") + text
        case .failed, .blocked: return paint("✗ ", "31") + text
        case .notRun: return paint("- ", "33") + text
        case .unchanged, .skipped: return verbosity == .verbose ? "  " + text : nil
        }
    }

    /// Redraws the live area (permanent lines first), at most every 0.1 s unless forced.
    private mutating func draw(force: Bool) {
        let now = console.now()
        guard force || now - lastDraw >= 0.1 else { return }
        lastDraw = now
        var out = ""
        if drawnLines > 0 { out += "\r\u{1B}[\(drawnLines)A" }
        out += "\r\u{1B}[J"
        for line in pending { out += line + "\n" }
        pending.removeAll()
        // Live lines must not wrap: the redraw moves up exactly one row per line.
        let live = liveLines(now: now).map { Self.fit($0, width: console.width - 1) }
        for line in live { out += line + "\n" }
        drawnLines = live.count
        console.out.write(out)
    }

    /// `line` cut to `width` visible characters; colour escape sequences do not count and the
    /// colour is reset after a cut.
    static func fit(_ line: String, width: Int) -> String {
        let width = max(width, 10)
        var out = "", visible = 0, inEscape = false, sawEscape = false
        for ch in line {
            if inEscape {
                out.append(ch)
                if ch.isLetter { inEscape = false }
                continue
            }
            if ch == "\u{1B}" {
                inEscape = true
                sawEscape = true
                out.append(ch)
                continue
            }
            if visible == width - 1, line.count > width {
                out += "…"
                return sawEscape ? out + "\u{1B}[0m" : out
            }
            out.append(ch)
            visible += 1
        }
        return out
    }

    private func liveLines(now: Double) -> [String] {
        guard !order.isEmpty else { return [] }
        let nameWidth = min(28, max(order.map(\.count).max() ?? 0, 5))
        var lines = order.compactMap { id -> String? in
            guard let a = active[id] else { return nil }
            let elapsed = now - a.start
            let rate = elapsed > 0 ? Double(a.written - a.kept) / elapsed : 0
            return bar(name: id, width: nameWidth, written: a.written, total: a.total, rate: rate)
        }
        let written = finishedBytes + active.values.reduce(0) { $0 + $1.written }
        let elapsed = now - (firstStart ?? now)
        let rate = elapsed > 0 ? Double(written) / elapsed : 0
        lines.append(bar(name: "total", width: nameWidth, written: written, total: totalBytes > 0 ? totalBytes : nil, rate: rate)
                     + "  (\(doneModels)/\(totalModels) models)")
        return lines
    }

    private func bar(name: String, width: Int, written: Int64, total: Int64?, rate: Double) -> String {
        let label = name.count > width ? String(name.prefix(width - 1)) + "…" : name.padding(toLength: width, withPad: " ", startingAt: 0)
        let cells = 20
        guard let total, total > 0 else {
            return "\(label)  [\(String(repeating: "?", count: cells))]  \(ByteFormat.bytes(written))  \(ByteFormat.rate(rate))"
        }
        let fraction = min(1, Double(written) / Double(total))
        let filled = Int(fraction * Double(cells))
        let eta = rate > 0 ? ByteFormat.duration(Double(total - written) / rate) : "-"
        let percent = String(format: "%3d%%", Int(fraction * 100))
        return "\(label)  [\(String(repeating: "#", count: filled))\(String(repeating: ".", count: cells - filled))] \(percent)  \(ByteFormat.bytes(written))/\(ByteFormat.bytes(total))  \(ByteFormat.rate(rate))  ETA \(eta)"
    }

    /// Clears the live area and prints the summary table and line.
    mutating func finish(_ summary: RunSummary) {
        order.removeAll()
        active.removeAll()
        draw(force: true)
        var lines: [String] = []
        if summary.dryRun, let plan = summary.report.plan {
            lines += SummaryTable.plan(plan, width: console.width)
            lines.append(paint(SummaryTable.planLine(plan), "1"))
            if let budget = SummaryTable.budgetLine(plan) { lines.append(budget) }
        } else if !summary.report.results.isEmpty {
            lines.append("")
            lines += SummaryTable.results(summary.report, width: console.width)
        }
        lines.append(paint(SummaryTable.summaryLine(summary), summary.exitCode == .success ? "1;32" : "1;31"))
        console.out.write(lines.joined(separator: "\n") + "\n")
    }
}

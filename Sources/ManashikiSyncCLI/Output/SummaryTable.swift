import Foundation
import ManashikiSync

/// Plain-text tables (no control characters): the results of a run, a plan, a store's status.
package enum SummaryTable {
    /// Lays out `rows` under `headers`, columns two spaces apart; the last column is cut to fit
    /// `width` (with `…`).
    package static func render(headers: [String], rows: [[String]], width: Int) -> [String] {
        // Cells can hold server text (versions, ids, reasons): never let control characters through.
        let all = ([headers] + rows).map { $0.map(TextSanitizer.oneLine) }
        var widths = headers.map(\.count)
        for row in all { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        return all.map { row in
            var line = ""
            for (i, cell) in row.enumerated() {
                let last = i == row.count - 1
                if last {
                    let room = max(8, width - line.count)
                    line += cell.count > room ? String(cell.prefix(room - 1)) + "…" : cell
                } else {
                    line += cell.padding(toLength: widths[i], withPad: " ", startingAt: 0) + "  "
                }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }

    /// MODEL, RESULT, VERSION, SIZE, NOTE for a run's results.
    package static func results(_ report: SyncReport, width: Int) -> [String] {
        let rows = report.results.map { r -> [String] in
            var note = ""
            switch r.status {
            case .notRun(let why): note = why
            case .skipped, .blocked: note = r.planned.reason
            case .failed(let f): note = f.description
            default: note = ResultView.trustNote(r) ?? ""
            }
            return [r.modelId, ResultView.status(r.status),
                    ResultView.versionText(from: ResultView.fromVersion(r), to: ResultView.version(r)),
                    ResultView.bytes(r.planned.action).map(ByteFormat.bytes) ?? "", TextSanitizer.oneLine(note)]
        }
        return render(headers: ["MODEL", "RESULT", "VERSION", "SIZE", "NOTE"], rows: rows, width: width)
    }

    /// ` (from mirror https://…)` for a download expected from a source other than the registry.
    static func fromSource(_ item: PlanItem) -> String {
        guard item.action.target != nil, let source = item.source, source != "registry" else { return "" }
        return " (from \(source))"
    }

    /// MODEL, ACTION, VERSION, SIZE, REASON for a plan (REASON names a source other than the registry).
    package static func plan(_ plan: Plan, width: Int) -> [String] {
        let rows = plan.items.map { item -> [String] in
            [item.modelId, item.action.name,
             ResultView.versionText(from: ResultView.fromVersion(item.action), to: ResultView.version(item.action)),
             sizeText(item.action), TextSanitizer.oneLine(item.reason + fromSource(item))]
        }
        return render(headers: ["MODEL", "ACTION", "VERSION", "SIZE", "REASON"], rows: rows, width: width)
    }

    /// A plan row's SIZE: what a download fetches, what an eviction frees.
    static func sizeText(_ action: PlanAction) -> String {
        if case .evict(_, let size, _) = action { return ByteFormat.bytes(size) }
        return action.target.map { ByteFormat.bytes($0.size) } ?? ""
    }

    /// `Budget: 4.00 GiB (store.budget.maxBytes); 3.10 GiB in the store, 3.90 GiB after the plan;
    /// 2 evictions free 1.20 GiB; 1 optional model left out.` Nil without a budget.
    package static func budgetLine(_ plan: Plan) -> String? {
        guard let b = plan.budget else { return nil }
        let capacity = b.capacityBytes == Int64.max ? "no limit (the volume's free space is unknown)" : ByteFormat.bytes(b.capacityBytes)
        var text = "Budget: \(capacity) for models (\(b.limitName)); \(ByteFormat.bytes(b.usedBytes)) in the store, \(ByteFormat.bytes(b.plannedBytes)) after the plan"
        if b.evictions > 0 { text += "; \(b.evictions) eviction\(b.evictions == 1 ? "" : "s") free\(b.evictions == 1 ? "s" : "") \(ByteFormat.bytes(b.evictedBytes))" }
        if b.leftOut > 0 { text += "; \(b.leftOut) optional model\(b.leftOut == 1 ? "" : "s") left out" }
        return text + "."
    }

    /// `Plan: 2 to download (5.0 MiB), 1 to replace, 0 to prune, 3 unchanged, 1 skipped, 0 blocked.`
    package static func planLine(_ plan: Plan) -> String {
        var c: [String: Int] = [:]
        for item in plan.items { c[item.action.name, default: 0] += 1 }
        var text = "Plan: \(c["download", default: 0]) to download, \(c["replace", default: 0]) to replace"
        if plan.bytesToFetch > 0 { text += " (\(ByteFormat.bytes(plan.bytesToFetch)) to fetch)" }
        text += ", \(c["verify", default: 0]) to re-record, \(c["prune", default: 0]) to prune\(c["evict"].map { ", \($0) to evict" } ?? ""), \(c["keep", default: 0]) unchanged, \(c["skip", default: 0]) skipped, \(c["blocked", default: 0]) blocked."
        return text
    }

    /// `sync: changed — 2 installed, 0 replaced, 0 re-recorded, 0 pruned, 1 unchanged, 0 skipped, 0 failed, 0 blocked; 5.0 MiB downloaded in 1.2s`.
    package static func summaryLine(_ summary: RunSummary) -> String {
        let c = ResultView.counts(summary.report.results)
        var text = "\(summary.command): \(summary.outcome)"
        if summary.report.plan != nil && !summary.dryRun {
            text += " — \(c["installed"]!) installed, \(c["replaced"]!) replaced, \(c["verified"]!) re-recorded, \(c["pruned"]!) pruned, \(c["unchanged"]!) unchanged, \(c["skipped"]!) skipped, \(c["failed"]!) failed, \(c["blocked"]!) blocked"
            if c["evicted"]! > 0 { text += ", \(c["evicted"]!) evicted" }
            text += "; \(ByteFormat.bytes(summary.report.bytesDownloaded)) downloaded"
            if summary.report.bytesReused > 0 { text += ", \(ByteFormat.bytes(summary.report.bytesReused)) reused from interrupted downloads" }
            text += " in \(DurationText.approximate(summary.durationSeconds))"
            let bySource = summary.report.bytesBySource
            if bySource.keys.contains(where: { $0 != "registry" }) {
                text += " (" + bySource.sorted { $0.key < $1.key }.map { "\(ByteFormat.bytes($0.value)) from \($0.key)" }.joined(separator: ", ") + ")"
            }
        }
        return text
    }
}

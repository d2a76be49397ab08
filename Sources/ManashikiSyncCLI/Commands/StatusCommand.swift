import Foundation
import ManashikiCore
import Manashiki
import ManashikiSync

/// `manashiki-sync status`: what is installed (versions, sizes), what the manifest still
/// wants, and how the last sync went. Offline; no hashing.
package struct StatusCommand: Sendable {
    /// One model's line.
    struct Row: Sendable {
        var modelId: String
        var version: String?
        var bytes: Int64?
        var sha256: String?
        /// `ok`, `modified` (size or mtime changed: run verify), `missing`, `untracked`,
        /// `not-installed`.
        var file: String
        var inManifest: Bool?
        /// Who claims the model in a shared store (`store.owner`); nil when not recorded.
        var owners: [String]?
        /// The manifest's class (`required`, `optional`, `onDemand`); nil when not in the manifest.
        var modelClass: String?
        /// The last recorded use (`StoreUsage`).
        var lastUsed: Date?
        /// Who signed the installed file, when its publisher signature verified (`trust.modelSigning`).
        var signer: PublisherSigner?
    }

    /// The context.
    package let context: CommandContext

    /// Creates the command.
    package init(context: CommandContext) { self.context = context }

    /// Runs it.
    package func run() async -> ExitCode {
        let store: URL, manifest: Manifest?
        do { (store, manifest) = try ManifestLoader.store(context.global, currentDirectory: context.console.currentDirectory) } catch {
            return context.report(error, command: "status")
        }
        let layout = StoreLayout(directory: store)
        var note: String?
        var state = StoreState()
        switch StateFile.read(layout) {
        case .loaded(let s): state = s
        case .missing: note = FileManager.default.fileExists(atPath: layout.directory.path)
            ? "no state file: nothing recorded by a sync yet" : StoreLayout.absentNote(layout.directory)
        case .unusable(let why): note = "\(why): the next sync re-hashes every file"
        case .newer(let version): note = StateFile.newerFormatMessage(version)
        }
        let usage = StoreUsage.read(layout).usage.lastUse
        let rows = Self.rows(state: state, identities: StoreScanner.identities(layout), manifest: manifest).map { row in
            var row = row
            row.modelClass = manifest?.models.first { $0.id == row.modelId }?.modelClass.rawValue
            row.lastUsed = usage[row.modelId]
            return row
        }
        let lastRun = LastRunRecord.read(layout)
        let partials = StorageDirectory.keptPartials(in: layout)
        let installed = rows.filter { $0.file == "ok" || $0.file == "modified" }.compactMap(\.bytes).clampedSum()
        let budget = manifest?.store.budget.map { $0.arithmetic(usedBytes: installed, freeBytes: DiskSpace.available(at: layout.directory)) }
        let view = View(store: layout.directory, rows: rows, partials: partials, lastRun: lastRun, note: note, budget: budget,
                        showsClasses: manifest.map { m in m.store.budget != nil || m.models.contains { $0.modelClass != .required } } ?? false || !usage.isEmpty,
                        tuf: TUFView.make(layout: layout, manifest: manifest, now: context.console.date()))
        if context.global.json {
            writeJSON(view)
        } else if context.global.verbosity > .quiet {
            writeText(view)
        }
        return .success
    }

    /// What `status` shows.
    struct View {
        var store: URL
        var rows: [Row]
        var partials: [StorageDirectory.KeptPartial]
        var lastRun: LastRunRecord?
        var note: String?
        /// The budget's arithmetic now (`freeBytes` of the volume), when the manifest has one.
        var budget: BudgetPlan?
        /// Whether the CLASS and LAST USED columns are shown (a budget, a class, or a recorded use).
        var showsClasses: Bool
        /// `trust.tuf`'s trusted metadata; nil without it.
        var tuf: TUFView?
        var installedBytes: Int64 { rows.filter { $0.file == "ok" || $0.file == "modified" }.compactMap(\.bytes).clampedSum() }
    }

    /// A row's cells: MODEL, VERSION, SIZE, FILE, IN MANIFEST, then CLASS and LAST USED, then OWNERS.
    static func cells(_ r: Row, classes: Bool, shared: Bool) -> [String] {
        var cells = [r.modelId, r.version ?? "-", r.bytes.map(ByteFormat.bytes) ?? "-", r.file, r.inManifest.map { $0 ? "yes" : "no" } ?? "-"]
        // UTC to the minute (`2026-12-02 05:31`): the table's last column must fit a terminal.
        if classes { cells += [r.modelClass ?? "-", r.lastUsed.map { ISO8601DateFormatter().string(from: $0).prefix(16).replacingOccurrences(of: "T", with: " ") } ?? "never"] }
        if shared { cells.append(r.owners.flatMap { $0.isEmpty ? nil : $0.joined(separator: ",") } ?? "-") }
        return cells
    }

    /// `Budget: 3.00 GiB for models (store.budget.maxBytes); 2.10 GiB used, 921.6 MiB left.`
    static func budgetLine(_ b: BudgetPlan, used: Int64, free: Int64?) -> String {
        let capacity = b.capacityBytes == Int64.max ? "no limit (the volume's free space is unknown)" : ByteFormat.bytes(b.capacityBytes)
        var text = "Budget: \(capacity) for models (\(b.limitName)); \(ByteFormat.bytes(used)) used"
        if b.capacityBytes != Int64.max { text += used > b.capacityBytes ? ", \(ByteFormat.bytes(used - b.capacityBytes)) over (the next sync evicts)" : ", \(ByteFormat.bytes(b.capacityBytes - used)) left" }
        if let free { text += "; \(ByteFormat.bytes(free)) free on the volume" }
        return text + "."
    }

    /// The rows: recorded models, untracked files, then manifest models not installed.
    static func rows(state: StoreState, identities: [String: FileIdentity], manifest: Manifest?) -> [Row] {
        let listed = manifest.map { Set($0.models.map(\.id)) }
        var rows: [Row] = []
        for (id, installed) in state.models {
            let file: String
            switch identities[id] {
            case nil: file = "missing"
            case let identity? where identity == installed.identity: file = "ok"
            default: file = "modified"
            }
            rows.append(Row(modelId: id, version: installed.version, bytes: installed.size, sha256: installed.sha256,
                            file: file, inManifest: listed.map { $0.contains(id) }, owners: installed.owners, signer: installed.signer))
        }
        for (id, identity) in identities where state.models[id] == nil {
            rows.append(Row(modelId: id, bytes: identity.size, file: "untracked", inManifest: listed.map { $0.contains(id) }))
        }
        if let manifest {
            let platform = (manifest.device ?? .current).platform
            for spec in manifest.models where spec.applies(to: platform) && state.models[spec.id] == nil && identities[spec.id] == nil {
                rows.append(Row(modelId: spec.id, file: "not-installed", inManifest: true))
            }
        }
        return rows.sorted { $0.modelId < $1.modelId }
    }

    private func writeText(_ view: View) {
        let console = context.console, rows = view.rows, lastRun = view.lastRun
        console.line("Store: \(view.store.path)")
        if let note = view.note { console.line("Note: \(note)") }
        if !rows.isEmpty {
            // Owners matter only in a shared store: the column shows once any owner is named.
            let shared = rows.contains { ($0.owners ?? []).contains { $0 != "default" } }
            let classes = view.showsClasses
            let table = SummaryTable.render(
                headers: ["MODEL", "VERSION", "SIZE", "FILE", "IN MANIFEST"] + (classes ? ["CLASS", "LAST USED (UTC)"] : []) + (shared ? ["OWNERS"] : []),
                rows: rows.map { Self.cells($0, classes: classes, shared: shared) },
                width: console.width)
            table.forEach(console.line)
        }
        for row in rows { if let signer = row.signer { console.line(TextSanitizer.oneLine("Signed: \(row.modelId) by \(signer)")) } }
        console.line("Installed: \(rows.filter { $0.version != nil && $0.file != "missing" }.count) model(s), \(ByteFormat.bytes(view.installedBytes))")
        if let budget = view.budget {
            console.line(Self.budgetLine(budget, used: view.installedBytes, free: DiskSpace.available(at: view.store)))
        }
        PartialsView.lines(view.partials, now: console.date()).forEach(console.line)
        if let run = lastRun {
            let ago = DurationText.approximate(max(0, console.date().timeIntervalSince(run.finishedAt)))
            var line = "Last sync: \(JSONEventWriter.timestamp(run.finishedAt)) (\(ago) ago): \(run.outcome), exit \(run.exitCode)"
            line += " — \(run.counts["installed", default: 0]) installed, \(run.counts["replaced", default: 0]) replaced, \(run.counts["pruned", default: 0]) pruned, \(run.counts["failed", default: 0]) failed, \(run.counts["blocked", default: 0]) blocked"
            if let error = run.error { line += "; error: \(error)" }
            console.line(TextSanitizer.oneLine(line))
            for (label, origin) in (run.sourceCredentials ?? [:]).sorted(by: { $0.key < $1.key }) {
                console.line(TextSanitizer.oneLine("  \(label): credentials from \(origin)"))
            }
        } else {
            console.line("Last sync: never (no record in this store)")
        }
        view.tuf?.lines(width: console.width).forEach(console.line)
        if rows.contains(where: { $0.file == "modified" || $0.file == "missing" }) {
            console.line("Some files changed since they were installed: run `manashiki-sync verify`.")
        }
    }

    private func writeJSON(_ view: View) {
        let models = view.rows.map { r in
            StatusModelFields(modelId: r.modelId, version: r.version, bytes: r.bytes, sha256: r.sha256, file: r.file, inManifest: r.inManifest, owners: r.owners,
                              class: r.modelClass, lastUsed: r.lastUsed.map(JSONEventWriter.timestamp), signer: r.signer)
        }
        let last = view.lastRun.map { run in
            LastRunFields(command: run.command, startedAt: JSONEventWriter.timestamp(run.startedAt), finishedAt: JSONEventWriter.timestamp(run.finishedAt),
                          outcome: run.outcome, exitCode: Int(run.exitCode), counts: run.counts, bytesDownloaded: run.bytesDownloaded, error: run.error,
                          sourceCredentials: run.sourceCredentials)
        }
        let budget = view.budget.map { b in
            StatusBudgetFields(maxBytes: b.budget.maxBytes, keepFreeBytes: b.budget.keepFreeBytes,
                               capacityBytes: b.capacityBytes == Int64.max ? nil : b.capacityBytes, limitedBy: b.limitedBy.rawValue,
                               usedBytes: view.installedBytes, freeBytes: DiskSpace.available(at: view.store))
        }
        JSONEventWriter(console: context.console).summary(command: "status", outcome: "ok", exit: .success, StatusSummaryFields(
            store: view.store.path, models: models, lastRun: last, note: view.note, partials: PartialsView.fields(view.partials, now: context.console.date()),
            installedBytes: view.installedBytes, budget: budget, tuf: view.tuf?.fields))
    }
}

/// One model of the `status` summary.
private struct StatusModelFields: Encodable {
    var modelId: String
    @Null var version: String?
    @Null var bytes: Int64?
    @Null var sha256: String?
    var file: String
    @Null var inManifest: Bool?
    @Null var owners: [String]?
    /// The manifest's class; null when not in the manifest (or no manifest).
    @Null var `class`: String?
    /// The last recorded use (ISO 8601); null when none.
    @Null var lastUsed: String?
    /// Who signed the installed file (`mode`, `name`, `keyFingerprint`, `issuer`,
    /// `signatureSHA256`); null when no publisher signature verified.
    @Null var signer: PublisherSigner?
}

/// `store.budget` now, in the `status` summary.
private struct StatusBudgetFields: Encodable {
    @Null var maxBytes: Int64?
    @Null var keepFreeBytes: Int64?
    /// Null when only keepFreeBytes is set and the volume's free space is unknown.
    @Null var capacityBytes: Int64?
    var limitedBy: String
    var usedBytes: Int64
    @Null var freeBytes: Int64?
}

/// The last run's record, in the `status` summary.
private struct LastRunFields: Encodable {
    var command: String
    var startedAt: String
    var finishedAt: String
    var outcome: String
    var exitCode: Int
    var counts: [String: Int]
    var bytesDownloaded: Int64
    @Null var error: String?
    /// Where each bucket source's credentials came from, by label; never a secret (left out
    /// when the run had no bucket source).
    var sourceCredentials: [String: String]?
}

/// The `summary` of `status`.
private struct StatusSummaryFields: Encodable {
    var store: String
    var models: [StatusModelFields]
    @Null var lastRun: LastRunFields?
    @Null var note: String?
    @Null var error: ErrorFields? = nil
    var partials: [PartialFields]
    var installedBytes: Int64
    /// The budget's arithmetic; null without a `store.budget`.
    @Null var budget: StatusBudgetFields?
    /// `trust.tuf`'s trusted metadata as last verified; null without it.
    @Null var tuf: StatusTUFFields?
}

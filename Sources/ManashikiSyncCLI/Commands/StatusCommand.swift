import Foundation
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
            ? "no state file: nothing recorded by a sync yet" : "the store does not exist yet: run `manashiki-sync sync`"
        case .unusable(let why): note = "\(why): the next sync re-hashes every file"
        case .newer(let version): note = StateFile.newerFormatMessage(version)
        }
        let rows = Self.rows(state: state, identities: StoreScanner.identities(layout), manifest: manifest)
        let lastRun = LastRunRecord.read(layout)
        let partials = StorageDirectory.keptPartials(in: layout)
        if context.global.json {
            writeJSON(store: layout.directory, rows: rows, partials: partials, lastRun: lastRun, note: note)
        } else if context.global.verbosity > .quiet {
            writeText(store: layout.directory, rows: rows, partials: partials, lastRun: lastRun, note: note)
        }
        return .success
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
                            file: file, inManifest: listed.map { $0.contains(id) }, owners: installed.owners))
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

    private func writeText(store: URL, rows: [Row], partials: [StorageDirectory.KeptPartial], lastRun: LastRunRecord?, note: String?) {
        let console = context.console
        console.line("Store: \(store.path)")
        if let note { console.line("Note: \(note)") }
        if !rows.isEmpty {
            // Owners matter only in a shared store: the column shows once any owner is named.
            let shared = rows.contains { ($0.owners ?? []).contains { $0 != "default" } }
            let table = SummaryTable.render(
                headers: ["MODEL", "VERSION", "SIZE", "FILE", "IN MANIFEST"] + (shared ? ["OWNERS"] : []),
                rows: rows.map { [$0.modelId, $0.version ?? "-", $0.bytes.map(ByteFormat.bytes) ?? "-", $0.file,
                                  $0.inManifest.map { $0 ? "yes" : "no" } ?? "-"]
                                  + (shared ? [$0.owners.flatMap { $0.isEmpty ? nil : $0.joined(separator: ",") } ?? "-"] : []) },
                width: console.width)
            table.forEach(console.line)
        }
        let total = rows.filter { $0.file == "ok" || $0.file == "modified" }.compactMap(\.bytes).reduce(0, +)
        console.line("Installed: \(rows.filter { $0.version != nil && $0.file != "missing" }.count) model(s), \(ByteFormat.bytes(total))")
        PartialsView.lines(partials, now: console.date()).forEach(console.line)
        if let run = lastRun {
            let ago = DurationText.approximate(max(0, console.date().timeIntervalSince(run.finishedAt)))
            var line = "Last sync: \(JSONEventWriter.timestamp(run.finishedAt)) (\(ago) ago): \(run.outcome), exit \(run.exitCode)"
            line += " — \(run.counts["installed", default: 0]) installed, \(run.counts["replaced", default: 0]) replaced, \(run.counts["pruned", default: 0]) pruned, \(run.counts["failed", default: 0]) failed, \(run.counts["blocked", default: 0]) blocked"
            if let error = run.error { line += "; error: \(error)" }
            console.line(TextSanitizer.oneLine(line))
        } else {
            console.line("Last sync: never (no record in this store)")
        }
        if rows.contains(where: { $0.file == "modified" || $0.file == "missing" }) {
            console.line("Some files changed since they were installed: run `manashiki-sync verify`.")
        }
    }

    private func writeJSON(store: URL, rows: [Row], partials: [StorageDirectory.KeptPartial], lastRun: LastRunRecord?, note: String?) {
        let models = rows.map { r in
            StatusModelFields(modelId: r.modelId, version: r.version, bytes: r.bytes, sha256: r.sha256, file: r.file, inManifest: r.inManifest, owners: r.owners)
        }
        let last = lastRun.map { run in
            LastRunFields(command: run.command, startedAt: JSONEventWriter.timestamp(run.startedAt), finishedAt: JSONEventWriter.timestamp(run.finishedAt),
                          outcome: run.outcome, exitCode: Int(run.exitCode), counts: run.counts, bytesDownloaded: run.bytesDownloaded, error: run.error)
        }
        JSONEventWriter(console: context.console).emit("summary", StatusSummaryFields(
            store: store.path, models: models, lastRun: last, note: note, partials: PartialsView.fields(partials, now: context.console.date()),
            installedBytes: rows.filter { $0.file == "ok" || $0.file == "modified" }.compactMap(\.bytes).reduce(0, +)))
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
}

/// The `summary` of `status`.
private struct StatusSummaryFields: Encodable {
    var command = "status"
    var outcome = "ok"
    var exitCode = Int(ExitCode.success.rawValue)
    var exitName = ExitCode.success.name
    var store: String
    var models: [StatusModelFields]
    @Null var lastRun: LastRunFields?
    @Null var note: String?
    @Null var error: ErrorFields? = nil
    var partials: [PartialFields]
    var installedBytes: Int64
}

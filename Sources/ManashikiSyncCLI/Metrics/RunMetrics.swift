import Foundation
import Manashiki
import ManashikiSync

/// The figures of one `sync` run in Prometheus' text exposition format, for node_exporter's
/// textfile collector.
///
/// A textfile is a snapshot that each run replaces, not a process that lives across runs, so
/// every figure is a **gauge of the last run** (no `_total` counters: a counter rebuilt from
/// a file would reset whenever the file is lost, and `rate()` over one sample every six
/// hours says nothing). Time is exposed as `_timestamp_seconds` gauges, which is what alerts
/// need: `time() - manashiki_sync_last_success_timestamp_seconds > 86400`. Every series
/// carries a `store` label, so two agents on one host (two files) never collide.
struct RunMetrics {
    /// The store directory (the `store` label; empty when the manifest could not be read).
    var store: String
    /// When the run finished.
    var finishedAt: Date
    /// When the last successful run (exit 0) finished, this one or an earlier one.
    var lastSuccessAt: Date?
    /// The outcome word (`changed`, `partial-failure`, `manifest-error`…).
    var outcome: String
    /// The exit code.
    var exitCode: Int32
    /// Seconds the run took.
    var durationSeconds: Double
    /// Models of the run by result status (every status present).
    var models: [String: Int]
    /// Bytes downloaded, kept without downloading (unchanged or verified), and re-hashed.
    var downloadedBytes: Int64 = 0
    var reusedBytes: Int64 = 0
    var hashedBytes: Int64 = 0
    /// The installed models and their bytes after the run, when the store's state could be read.
    var installed: (count: Int, bytes: Int64)?
    /// The plan's budget arithmetic, when the manifest has a `store.budget`.
    var budget: BudgetPlan?
    /// Bytes the run's evictions freed (only those that ran).
    var evictedBytes: Int64 = 0
    /// Models the run's trust refused, by `TrustRefusal.reasonCode`; nil when the manifest
    /// configures no trust (the family is then left out).
    var trustRefusals: [String: Int]?
    /// `trust.tuf`'s trusted metadata after the run; nil without `trust.tuf`.
    var tuf: TUFTrustedState?

    /// Every outcome word a run can end with; each gets a 0/1 series.
    static let outcomes = ["in-sync", "changed", "partial-failure", "failed", "locked", "refused", "cancelled",
                           "manifest-error", "key-error"]
    /// Every result status; each gets a series.
    static let statuses = ["unchanged", "installed", "replaced", "verified", "pruned", "evicted", "skipped", "blocked", "not-run", "failed"]

    /// The exposition text (HELP and TYPE for every family, `\n` line ends, a final newline).
    var text: String {
        var out = ""
        let label = "store=\"\(Self.escape(store))\""
        func family(_ name: String, _ help: String, _ samples: [(labels: String, value: String)]) {
            out += "# HELP manashiki_sync_\(name) \(help)\n# TYPE manashiki_sync_\(name) gauge\n"
            for s in samples { out += "manashiki_sync_\(name){\(label)\(s.labels.isEmpty ? "" : "," + s.labels)} \(s.value)\n" }
        }
        func one(_ name: String, _ help: String, _ value: String) { family(name, help, [("", value)]) }
        one("last_run_timestamp_seconds", "When the last sync run finished, in seconds since the Unix epoch.", Self.seconds(finishedAt))
        one("last_success_timestamp_seconds",
            "When the last sync run that exited 0 finished, in seconds since the Unix epoch (0: none yet). Kept across failed runs.",
            lastSuccessAt.map(Self.seconds) ?? "0")
        one("last_run_exit_code", "The exit code of the last sync run (0 success, 1 failure, 2 configuration, 3 partial, 75 locked, 130/143 signal).",
            String(exitCode))
        family("last_run_outcome", "1 for the outcome of the last sync run, 0 for the others.",
               Self.outcomes.map { ("outcome=\"\($0)\"", $0 == outcome ? "1" : "0") })
        one("last_run_duration_seconds", "How long the last sync run took.", String(format: "%.3f", durationSeconds))
        family("last_run_models", "Models of the last sync run by result status.",
               Self.statuses.map { ("status=\"\($0)\"", String(models[$0] ?? 0)) })
        one("last_run_downloaded_bytes", "Bytes downloaded (and verified) by the last sync run.", String(downloadedBytes))
        one("last_run_reused_bytes", "Bytes of installed models the last sync run kept without downloading them.", String(reusedBytes))
        one("last_run_hashed_bytes", "Bytes of installed files the last sync run re-hashed to check them.", String(hashedBytes))
        if let installed {
            one("store_size_bytes", "Bytes of the models installed in the store after the last sync run.", String(installed.bytes))
            one("models_installed", "Models installed in the store after the last sync run.", String(installed.count))
        }
        if let budget { budgetFamilies(budget, one) }
        if let trustRefusals {
            family("last_run_trust_refusals", "Models the last sync run's trust (trust.tuf, trust.modelSigning) refused, by reason.",
                   TrustRefusal.reasonCodes.map { ("reason=\"\($0)\"", String(trustRefusals[$0] ?? 0)) })
        }
        if let tuf, !tuf.roles.isEmpty { tufFamilies(tuf, family) }
        return out
    }

    /// `store.budget`: the capacity the plan worked with, the limits as written, what the
    /// evictions freed (the number of evictions is `last_run_models{status="evicted"}`).
    private func budgetFamilies(_ b: BudgetPlan, _ one: (String, String, String) -> Void) {
        if b.capacityBytes != Int64.max {
            one("store_budget_bytes", "Bytes the store's models may take (store.budget: maxBytes, or the volume's free space less keepFreeBytes, whichever is smaller), as the last sync run planned.", String(b.capacityBytes))
        }
        if let max = b.budget.maxBytes { one("store_budget_max_bytes", "store.budget.maxBytes.", String(max)) }
        if let keep = b.budget.keepFreeBytes { one("store_budget_keep_free_bytes", "store.budget.keepFreeBytes.", String(keep)) }
        one("last_run_evicted_bytes", "Bytes the last sync run evicted to stay within store.budget.", String(evictedBytes))
    }

    /// `trust.tuf`: each trusted top-level role's version and expiry after the run, and the
    /// seconds from the run's end until that expiry (the gauge to alert on before devices
    /// freeze; `expires_timestamp_seconds - time()` is the same, measured at query time).
    private func tufFamilies(_ tuf: TUFTrustedState, _ family: (String, String, [(labels: String, value: String)]) -> Void) {
        func samples(_ value: (TUFTrustedState.Role) -> String) -> [(labels: String, value: String)] {
            tuf.roles.map { ("role=\"\($0.name)\"", value($0)) }
        }
        // Whole seconds, as `last_run_timestamp_seconds`: expiry_seconds = expires - last run exactly.
        let end = Int64(finishedAt.timeIntervalSince1970.rounded(.down))
        family("tuf_metadata_version", "The version of each top-level TUF role the store trusts after the last sync run.",
               samples { String($0.version) })
        family("tuf_metadata_expires_timestamp_seconds", "When each trusted top-level TUF role expires, in seconds since the Unix epoch.",
               samples { Self.seconds($0.expires) })
        family("tuf_metadata_expiry_seconds",
               "Seconds from the end of the last sync run until each trusted top-level TUF role expires (negative: expired; nothing new installs then).",
               samples { String(Int64($0.expires.timeIntervalSince1970.rounded(.down)) - end) })
    }

    /// Whole seconds since the epoch (the last-run record keeps whole seconds too, so a success
    /// carried over from it reads the same).
    static func seconds(_ date: Date) -> String { String(Int64(date.timeIntervalSince1970.rounded(.down))) }

    /// A label value with `\`, `"` and line feeds escaped, as the text format requires.
    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    /// The `store` label of an earlier file's text (unescaped), if it names a store.
    static func store(inText text: String) -> String? {
        let prefix = "manashiki_sync_last_run_timestamp_seconds{store=\""
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else { return nil }
        var value = "", escaped = false
        for c in line.dropFirst(prefix.count) {
            if escaped { value.append(c == "n" ? "\n" : c); escaped = false }
            else if c == "\\" { escaped = true }
            else if c == "\"" { return value.isEmpty ? nil : value }
            else { value.append(c) }
        }
        return nil
    }

    /// The `last_success_timestamp_seconds` value of an earlier file's text, if it has a
    /// positive one.
    static func lastSuccess(inText text: String) -> Date? {
        for line in text.split(separator: "\n") where line.hasPrefix("manashiki_sync_last_success_timestamp_seconds") {
            guard let value = line.split(separator: " ").last.flatMap({ Double($0) }), value > 0, value.isFinite else { continue }
            return Date(timeIntervalSince1970: value)
        }
        return nil
    }
}

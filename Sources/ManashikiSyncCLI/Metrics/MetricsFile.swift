import Foundation
import ManashikiCore
import Manashiki
import ManashikiSync

/// Writes a run's `RunMetrics` to the `--metrics-file` / `metrics.file` path, atomically
/// (`DurableFile`: temporary file, fsync, rename, fsync of the directory), so node_exporter
/// never reads half a file. The temporary name does not end in `.prom`, which the textfile
/// collector ignores.
struct MetricsFile {
    /// The file.
    let url: URL

    /// The metrics of a run that got as far as a report.
    /// - Parameter trust: the manifest's `trust` section (what the trust families report).
    func metrics(report: SyncReport, exitCode: ExitCode, store: URL, started: Date, finished: Date,
                 lastRun: LastRunRecord?, trust: TrustSettings = TrustSettings()) -> RunMetrics {
        var m = RunMetrics(store: store.path, finishedAt: finished,
                           lastSuccessAt: lastSuccess(exitCode: exitCode, finished: finished, lastRun: lastRun),
                           outcome: ResultView.outcome(report.outcome), exitCode: exitCode.rawValue,
                           durationSeconds: max(0, finished.timeIntervalSince(started)), models: ResultView.counts(report.results))
        m.downloadedBytes = report.bytesDownloaded
        m.hashedBytes = report.bytesHashed
        m.budget = report.plan?.budget
        m.evictedBytes = report.results.filter { $0.status == .evicted }.compactMap { ResultView.bytes($0.planned.action) }.clampedSum()
        if trust.isConfigured {
            m.trustRefusals = Dictionary(report.results.compactMap { $0.failure?.trust?.reasonCode }.map { ($0, 1) }, uniquingKeysWith: +)
        }
        if trust.tuf != nil {
            m.tuf = TUFTrustedState(store: TUFMetadataStore(directory: StoreLayout(directory: store).tufMetadataDirectory))
        }
        if case .loaded(let state) = StateFile.read(StoreLayout(directory: store)) {
            m.installed = (state.models.count, state.models.values.map(\.size).clampedSum())
            for result in report.results {
                switch result.status {
                case .unchanged, .verified: m.reusedBytes += state.models[result.modelId]?.size ?? 0
                default: break
                }
            }
        }
        return m
    }

    /// The metrics of a run that stopped before it could start (manifest or key error).
    /// Without a store (the manifest could not be read), the previous file's `store` label is
    /// kept: a new label would start new series, and alerts on the old ones would go silent.
    func metrics(outcome: String, exitCode: ExitCode, store: URL?, started: Date, finished: Date) -> RunMetrics {
        let previousStore = store == nil ? (try? String(contentsOf: url, encoding: .utf8)).flatMap(RunMetrics.store(inText:)) : nil
        let store = store ?? previousStore.map { URL(fileURLWithPath: $0) }
        let lastRun = store.flatMap { LastRunRecord.read(StoreLayout(directory: $0)) }
        return RunMetrics(store: previousStore ?? store?.path ?? "", finishedAt: finished,
                          lastSuccessAt: lastSuccess(exitCode: exitCode, finished: finished, lastRun: lastRun),
                          outcome: outcome, exitCode: exitCode.rawValue,
                          durationSeconds: max(0, finished.timeIntervalSince(started)), models: ResultView.counts([]))
    }

    /// This run's end if it succeeded, else the latest success the previous metrics file or the
    /// store's last-run record knows: a failed run never erases when the last success was.
    func lastSuccess(exitCode: ExitCode, finished: Date, lastRun: LastRunRecord?) -> Date? {
        if exitCode == .success { return finished }
        let previous = (try? String(contentsOf: url, encoding: .utf8)).flatMap(RunMetrics.lastSuccess(inText:))
        return [previous, lastRun?.latestSuccess].compactMap { $0 }.max()
    }

    /// Writes `metrics`; returns what went wrong, or nil.
    func write(_ metrics: RunMetrics) -> String? {
        do {
            try DurableFile.replace(url, with: Data(metrics.text.utf8))
            return nil
        } catch {
            // Name the metrics file and its directory, not the SDK's "storage directory".
            let reason: String
            if case .fileSystem(_, _, let code)? = error as? APIError { reason = String(cString: strerror(code)) } else { reason = SyncFailure(error).message }
            return "the metrics file \(url.path) could not be written (\(reason)): check that \(url.deletingLastPathComponent().path) exists "
                + "and this user may write there, or point --metrics-file (metrics.file) elsewhere"
        }
    }
}

import Foundation
import Manashiki
import ManashikiSync
import ManashikiCore

/// `manashiki-sync sync`: reconcile the store with the manifest, once or in a loop.
package struct SyncCommand: Sendable {
    /// The context.
    package let context: CommandContext
    /// The sync options.
    package let options: SyncOptions

    /// Creates the command.
    package init(context: CommandContext, options: SyncOptions) {
        self.context = context
        self.options = options
    }

    /// Runs it (forever with `--every`, until cancelled).
    package func run() async -> ExitCode {
        let started = context.console.date()
        let manifest: Manifest
        do {
            manifest = try ManifestLoader.load(context.global, sync: options, currentDirectory: context.console.currentDirectory)
        } catch {
            let code = context.report(error, command: "sync")
            let store = context.global.storeDirectory.map { PathResolver.resolve($0, against: context.console.currentDirectory) }
            writeMetrics(metricsFile(nil)) { $0.metrics(outcome: "manifest-error", exitCode: code, store: store, started: started, finished: context.console.date()) }
            return code
        }
        let key: LoadedKey?
        do { key = try context.loadKeyUnlessOffline(manifest: manifest) } catch {
            let code = context.report(error, command: "sync")
            writeMetrics(metricsFile(manifest)) {
                $0.metrics(outcome: "key-error", exitCode: code, store: manifest.storeDirectory, started: started, finished: context.console.date())
            }
            return code
        }

        if let rate = manifest.policies.maxBytesPerSecond, context.global.verbosity == .verbose, !context.global.json {
            context.console.err.write("manashiki-sync: downloads limited to \(ByteFormat.rate(Double(rate))) in total\n")
        }
        guard let every = options.every else { return await once(manifest: manifest, key: key) }
        let last = Locked<ExitCode>(.success)
        let console = context.console, quiet = context.global.verbosity == .quiet, json = context.global.json
        await LoopScheduler(interval: every, jitter: options.jitter).run(onWait: { delay in
            guard !quiet, !json else { return }
            console.line("next sync in \(DurationText.approximate(JSONEventWriter.seconds(delay)))")
        }) {
            let code = await once(manifest: manifest, key: key)
            last.withLock { $0 = code }
            return code != .usage
        }
        // A signal while waiting ends the loop cleanly; one during a run reports the interruption.
        let code = last.current
        return code == .interrupted || code == .terminated || code == .usage ? code : .success
    }

    /// One sync, with its last-run record and metrics.
    func once(manifest: Manifest, key: LoadedKey?) async -> ExitCode {
        let started = context.console.date()
        let (code, report) = await ReconcileRun(context: context, manifest: manifest, key: key, command: "sync", dryRun: options.dryRun).perform()
        guard let report, !options.dryRun else {
            // A run that could not start (its CA bundle gone, see ReconcileRun) is still a failed
            // run for the metrics: the last success stays, the exit code and outcome say 1/failed.
            if code == .failure {
                writeMetrics(metricsFile(manifest)) {
                    $0.metrics(outcome: "failed", exitCode: code, store: manifest.storeDirectory, started: started, finished: context.console.date())
                }
            }
            return code
        }
        let finished = context.console.date()
        let layout = StoreLayout(directory: manifest.storeDirectory)
        let previous = LastRunRecord.read(layout)
        if report.outcome != .storeBusy {
            let record = LastRunRecord(command: "sync", startedAt: started, finishedAt: finished,
                                       outcome: ResultView.outcome(report.outcome), exitCode: code.rawValue,
                                       counts: ResultView.counts(report.results), bytesDownloaded: report.bytesDownloaded,
                                       error: report.runFailure.map { TextSanitizer.oneLine($0.description) },
                                       lastSuccessAt: code == .success ? finished : previous?.latestSuccess,
                                       sourceCredentials: report.sourceCredentials.isEmpty ? nil : report.sourceCredentials)
            if let problem = record.write(to: layout), context.global.verbosity > .quiet {
                context.console.warning(problem)
            }
        }
        writeMetrics(metricsFile(manifest)) {
            $0.metrics(report: report, exitCode: code, store: manifest.storeDirectory, started: started, finished: finished, lastRun: previous,
                       trust: manifest.trust)
        }
        return code
    }

    /// `--metrics-file` (relative to the current directory), else the manifest's `metrics.file`.
    func metricsFile(_ manifest: Manifest?) -> MetricsFile? {
        if let path = options.metricsFile { return MetricsFile(url: PathResolver.resolve(path, against: context.console.currentDirectory)) }
        return manifest?.metricsFile.map(MetricsFile.init(url:))
    }

    /// Writes the metrics `build` makes, if a file is configured. A failure is reported on
    /// stderr even with `--quiet` (the file was asked for, and a stale one misleads alerts) but
    /// does not change the exit code.
    func writeMetrics(_ file: MetricsFile?, _ build: (MetricsFile) -> RunMetrics) {
        guard let file, !options.dryRun else { return }
        if let problem = file.write(build(file)) { context.console.error(problem) }
    }
}

import Foundation
import ManashikiSync
import ManashikiCore

/// `manashiki-sync sync`: reconcile the store with the manifest, once or in a loop.
public struct SyncCommand: Sendable {
    /// The context.
    public let context: CommandContext
    /// The sync options.
    public let options: SyncOptions

    /// Creates the command.
    public init(context: CommandContext, options: SyncOptions) {
        self.context = context
        self.options = options
    }

    /// Runs it (forever with `--every`, until cancelled).
    public func run() async -> ExitCode {
        let manifest: Manifest
        do {
            manifest = try ManifestLoader.load(context.global, sync: options, currentDirectory: context.console.currentDirectory)
        } catch { return context.report(error, command: "sync") }
        let key: LoadedKey
        do { key = try context.loadKey(manifest: manifest) } catch { return context.report(error, command: "sync") }

        guard let every = options.every else { return await once(manifest: manifest, key: key) }
        let last = Locked<ExitCode>(.success)
        let console = context.console, quiet = context.global.verbosity == .quiet, json = context.global.json
        await LoopScheduler(interval: every, jitter: options.jitter).run(onWait: { delay in
            guard !quiet, !json else { return }
            console.line("next sync in \(ByteFormat.duration(JSONEventWriter.seconds(delay)))")
        }) {
            let code = await once(manifest: manifest, key: key)
            last.withLock { $0 = code }
            return code != .usage
        }
        // A signal while waiting ends the loop cleanly; one during a run reports the interruption.
        let code = last.current
        return code == .interrupted || code == .terminated || code == .usage ? code : .success
    }

    /// One sync, with its last-run record.
    func once(manifest: Manifest, key: LoadedKey) async -> ExitCode {
        let started = context.console.date()
        let (code, report) = await ReconcileRun(context: context, manifest: manifest, key: key, command: "sync", dryRun: options.dryRun).perform()
        guard let report, !options.dryRun, report.outcome != .locked else { return code }
        let record = LastRunRecord(command: "sync", startedAt: started, finishedAt: context.console.date(),
                                   outcome: ResultView.outcome(report.outcome), exitCode: code.rawValue,
                                   counts: ResultView.counts(report.results), bytesDownloaded: report.bytesDownloaded,
                                   error: report.runFailure.map { TextSanitizer.oneLine($0.description) })
        if let problem = record.write(to: StoreLayout(directory: manifest.storeDirectory)), context.global.verbosity > .quiet {
            context.console.warning(problem)
        }
        return code
    }
}

import Foundation
import ManashikiSync
import ManashikiCore

/// One reconciler run with output: builds the `Reconciler`, streams its events to the
/// renderers, and turns its report into an exit code.
struct ReconcileRun: Sendable {
    let context: CommandContext
    let manifest: Manifest
    /// The key; nil with `--offline`.
    let key: LoadedKey?
    /// `plan`, `sync` or `verify`.
    let command: String
    /// Plan only.
    let dryRun: Bool
    /// Whether the JSON `summary` line is written (false when the caller writes its own).
    var jsonSummary = true
    /// `ensure`'s model ids (`Reconciler.Options.ensuring`); nil for plan, sync and verify.
    var ensuring: [String]?

    /// Runs and returns the exit code and the report (nil when the reconciler could not be built).
    func perform() async -> (ExitCode, SyncReport?) {
        var unusable = ExitCode.usage
        guard let reconciler = makeReconciler(failure: &unusable) else { return (unusable, nil) }
        let renderer = context.renderer(dryRun: dryRun, jsonSummary: jsonSummary)
        if context.global.json && jsonSummary {
            JSONEventWriter(console: context.console).emit("run.started", RunStartedFields(
                command: command, manifest: ManifestLoader.url(context.global, currentDirectory: context.console.currentDirectory).path,
                store: manifest.storeDirectory.path, registry: manifest.registry.baseURL.absoluteString, dryRun: dryRun,
                offline: reconciler.options.offline, locked: reconciler.options.lock != nil, fallback: manifest.fallback.rawValue,
                sources: (reconciler.options.extraSources + manifest.sources).map(manifest.label(of:))))
        }
        let start = context.console.now()
        let report = await reconciler.run(onEvent: { renderer.handle($0) })
        let (code, outcome) = dryRun ? Self.planExit(report, detailed: command == "plan") : Self.syncExit(report)
        renderer.finish(RunSummary(command: command, report: report, exitCode: code, outcome: outcome,
                                   durationSeconds: context.console.now() - start, dryRun: dryRun))
        return (code, report)
    }

    /// The reconciler for the manifest and key, or nil (the problem printed, and `failure` set)
    /// when the registry settings cannot be used: 2 (`usage`), except for a CA bundle
    /// (`registry.caBundle`, `--ca-bundle`) that was usable when the manifest was loaded and
    /// is gone or broken now, which fails this run only (1): `sync --every` goes on, and the
    /// next run reads the bundle again, so a restored or rotated bundle is picked up.
    func makeReconciler(failure: inout ExitCode) -> Reconciler? {
        var options = Reconciler.Options(lockTimeout: context.global.lockTimeout, dryRun: dryRun)
        options.environment = SyncEnvironment(variables: context.console.environment)
        let cwd = context.console.currentDirectory
        options.offline = context.global.offline
        options.ensuring = ensuring
        for text in context.global.from {
            do { options.extraSources.append(try ArtifactSource(commandLine: text, relativeTo: cwd)) } catch {
                context.console.error("--from \(error)")
                return nil
            }
        }
        if context.global.locked {
            do { options.lock = try LockFile.read(ManifestLoader.lockURL(context.global, currentDirectory: cwd)) } catch {
                context.console.error("\(error)")
                return nil
            }
        }
        do {
            return try Reconciler(manifest: manifest, apiKey: key?.value, options: options)
        } catch let error as ManifestError where error.caBundleFailure != nil {
            let problem = error.caBundleFailure?.description ?? "the CA bundle cannot be used"
            let hint = "restore the file, or point registry.caBundle (or --ca-bundle) at the CA bundle; each run reads it again"
            context.console.error("this run cannot verify the registry: \(problem) — \(hint)")
            if context.global.json && jsonSummary {
                JSONEventWriter(console: context.console).stopped(
                    command: command, outcome: "failed", exit: .failure, error: ErrorFields(message: problem, hint: hint, kind: "terminal"))
            }
            failure = .failure
            return nil
        } catch {
            context.console.error("cannot use the registry settings: \(SyncFailure(error).description)")
            return nil
        }
    }

    /// Repairs the store (`Reconciler.repair`), rendering the repairing sync like a `sync`
    /// without its JSON summary; nil when the reconciler could not be built.
    func repair(onVerified: @escaping @Sendable (VerificationReport) -> Void) async -> RepairReport? {
        var unusable = ExitCode.usage
        guard let reconciler = makeReconciler(failure: &unusable) else { return nil }
        let renderer = context.renderer(dryRun: false, jsonSummary: false)
        let start = context.console.now()
        let report = await reconciler.repair(onVerified: onVerified, onEvent: { renderer.handle($0) })
        if let sync = report.sync {
            let (code, outcome) = Self.syncExit(sync)
            renderer.finish(RunSummary(command: command, report: sync, exitCode: code, outcome: outcome,
                                       durationSeconds: context.console.now() - start, dryRun: false))
        }
        return report
    }

    /// The exit code and outcome word of an applied run.
    static func syncExit(_ report: SyncReport) -> (ExitCode, String) {
        let word = ResultView.outcome(report.outcome)
        switch report.outcome {
        case .inSync, .changed, .planned: return (.success, word)
        case .partialFailure: return (.partialFailure, word)
        // A budget the required models alone exceed leaves the store as it was, its models usable:
        // 3, like a run whose required models could not all be delivered.
        case .refused where report.plan?.refusal?.isOverBudget == true: return (.partialFailure, word)
        case .failed, .refused: return (.failure, word)
        case .storeBusy: return (.busy, word)
        case .cancelled: return (SignalTrap.caughtExitCode ?? .interrupted, word)
        }
    }

    /// The exit code and outcome word of a plan: `in-sync` 0, `changes-pending` 10 (0 unless
    /// `detailed`), `cannot-apply` 1 (blocked items or a refused plan).
    static func planExit(_ report: SyncReport, detailed: Bool) -> (ExitCode, String) {
        guard report.outcome == .planned, let plan = report.plan else { return syncExit(report) }
        if plan.refusal != nil || !plan.blocked.isEmpty { return (.failure, "cannot-apply") }
        if plan.changesStore { return (detailed ? .changesPending : .success, "changes-pending") }
        return (.success, "in-sync")
    }
}

/// `run.started`.
private struct RunStartedFields: Encodable {
    var command: String
    var manifest: String
    var store: String
    var registry: String
    var dryRun: Bool
    var offline: Bool
    var locked: Bool
    var fallback: String
    var sources: [String]
}

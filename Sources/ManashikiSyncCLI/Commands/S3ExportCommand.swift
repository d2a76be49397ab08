import Foundation
import ManashikiCore
import Manashiki
import ManashikiSync

/// `manashiki-sync export s3://BUCKET/PREFIX/`: write the selected models into a bucket in the
/// bundle layout (`S3Exporter`). The endpoint, region, addressing and credentials come from
/// the manifest's `s3` source of the same bucket and prefix when there is one, then the command
/// line (`--endpoint`, `--region`, `--addressing`, `--profile`, `--requester-pays`) overrides them;
/// otherwise from the environment as the AWS SDKs read it. TLS and proxies as for every command.
struct S3ExportCommand: Sendable {
    let context: CommandContext
    let options: ExportOptions

    /// 0 exported, 3 some models could not be exported (the index lists the rest), 1 none could
    /// (the bucket refused the credentials, does not exist, is unreachable), 2 usage/manifest/lock
    /// error, 75 the store is locked.
    func run() async -> ExitCode {
        let export = ExportCommand(context: context, options: options)
        let cwd = context.console.currentDirectory
        let shown = options.directory
        let store: URL, manifest: Manifest?
        do { (store, manifest) = try ManifestLoader.store(context.global, currentDirectory: cwd) } catch {
            return context.report(error, command: "export")
        }
        let settings: S3Settings
        switch Self.settings(options, manifest: manifest) {
        case .success(let s): settings = s
        case .failure(let problem): return usage(problem.description, location: shown)
        }
        if options.chunkSizeGiven && options.chunkSize < S3Exporter.minimumPartSize {
            return usage("--chunk-size for s3:// is at least 5M (S3's smallest part)", location: shown)
        }
        let selection: BundleExporter.Selection
        switch export.resolveSelection(manifest) {
        case .success(let s): selection = s
        case .failure(let problem):
            context.console.error(problem.message)
            summary(outcome: problem.outcome, code: .usage, location: shown, report: nil, error: problem.message)
            return .usage
        }
        let transport: any HTTPTransport
        do { transport = try OCIExportCommand.transport(manifest, caBundle: context.global.caBundle, cwd: cwd) } catch {
            return failed("\(error)", location: shown)
        }
        let layout = StoreLayout(directory: store)
        let lock: StoreLock?
        switch await export.lockStore(layout) {
        case .success(let held): lock = held
        case .failure(let failure):
            if failure.code == .busy { summary(outcome: "locked", code: .busy, location: shown, report: nil, error: "the store is locked by another run") }
            return failure.code
        }
        defer { lock?.release() }
        hideSecrets(settings.credentials)
        let verbose = context.global.verbosity > .quiet && !context.global.json
        let console = context.console
        let report: S3Exporter.Report
        do {
            report = try await S3Exporter.export(store: layout, to: settings, selection: selection, options: exportOptions(manifest),
                                                 transport: transport, environment: SyncEnvironment(variables: console.environment),
                                                 retry: retryPolicy(manifest), progress: { id, sent, total in
                                                     if verbose && sent == total { console.line("\(id): \(ByteFormat.bytes(total)) in the bucket") }
                                                 })
        } catch is CancellationError {
            let code = SignalTrap.caughtExitCode ?? .interrupted
            summary(outcome: "interrupted", code: code, location: shown, report: nil, error: "interrupted; multipart uploads in progress were aborted, the index was not written")
            return code
        } catch {
            return failed(SyncFailure(error).message, location: shown)
        }
        return finish(report)
    }

    /// The bucket's settings: the manifest's `s3` source of the same bucket and prefix, if any,
    /// with the command line's options over it.
    static func settings(_ options: ExportOptions, manifest: Manifest?) -> Result<S3Settings, S3Location.Problem> {
        let location: S3Location
        switch S3Location.parse(options.directory) {
        case .success(let l): location = l
        case .failure(let problem): return .failure(problem)
        }
        var settings = manifest?.sources.lazy.compactMap { source -> S3Settings? in
            guard case .s3(let s) = source.kind, s.location == location else { return nil }
            return s
        }.first ?? S3Settings(location)
        let given = options.s3
        if let text = given.endpoint {
            guard let c = URLComponents(string: text), let scheme = c.scheme?.lowercased(), ["http", "https"].contains(scheme), let host = c.host, !host.isEmpty,
                  c.user == nil, c.password == nil, c.query == nil, let url = c.url else {
                return .failure(.init(message: "--endpoint takes an http(s) URL without credentials or query", hint: "write it like https://minio.example:9000"))
            }
            if scheme == "http" && !LoopbackHost.matches(host) && !settings.allowsPlainHTTP {
                return .failure(.init(message: "--endpoint \(text) is plain http to another host",
                                      hint: "use https, or list the bucket in the manifest's \"sources\" with \"endpoint\" and \"allowHTTP\": true"))
            }
            settings.endpoint = url
        }
        if let region = given.region { settings.region = region }
        if let addressing = given.addressing.flatMap(S3Addressing.init(rawValue:)) { settings.addressing = addressing }
        if let profile = given.profile { settings.credentials = .profile(profile) }
        if given.requesterPays { settings.requesterPays = true }
        return .success(settings)
    }

    private func exportOptions(_ manifest: Manifest?) -> S3Exporter.Options {
        var push = S3Exporter.Options()
        push.partSize = options.chunkSize
        push.singlePutLimit = min(options.chunkSize, 16 << 20)
        push.parallelParts = options.concurrency ?? 4
        push.includePrivate = options.includePrivate
        push.rateLimiter = manifest?.policies.maxBytesPerSecond.map { BandwidthLimiter(bytesPerSecond: Int64($0)) }
        return push
    }

    private func retryPolicy(_ manifest: Manifest?) -> RetryPolicy {
        guard let manifest else { return RetryPolicy() }
        return RetryPolicy(maxAttempts: manifest.policies.maxAttempts, maxRetryAfter: .seconds(manifest.policies.maxRetryAfterSeconds))
    }

    /// The secrets the credentials may come from never reach the output, whatever an error says.
    private func hideSecrets(_ source: S3CredentialSource) {
        var names = ["AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_CONTAINER_AUTHORIZATION_TOKEN"]
        if case .environment(_, let secret, let token) = source { names += [secret] + (token.map { [$0] } ?? []) }
        for name in names {
            guard let value = context.console.environment[name], value.count >= 8 else { continue }
            context.console.out.hide(value)
            context.console.err.hide(value)
        }
    }

    /// Prints the outcome (text or the JSON summary) and returns the exit code.
    private func finish(_ report: S3Exporter.Report) -> ExitCode {
        let shown = report.location.description
        report.warnings.forEach { context.console.warning($0) }
        if !report.abortedUploads.isEmpty && context.global.verbosity > .quiet {
            context.console.warning("aborted \(report.abortedUploads.count) multipart upload(s) an interrupted export left under \(shown)blobs/sha256/")
        }
        report.failures.forEach { context.console.error($0.description) }
        let exported = report.exported.count
        let code: ExitCode = report.failures.isEmpty ? .success : exported > 0 ? .partialFailure : .failure
        if context.global.json {
            summary(outcome: code == .success ? "exported" : code == .partialFailure ? "partial-failure" : "failed", code: code, location: shown, report: report, error: nil)
        } else if context.global.verbosity > .quiet {
            context.console.line("exported \(exported) model(s) to \(shown) at \(report.endpoint): \(report.uploaded.count) uploaded (\(ByteFormat.bytes(report.bytesUploaded))), \(report.present.count) already there; the index lists \(report.index?.models.count ?? 0) artifact(s); credentials: \(report.credentials)")
        }
        return code
    }

    private func usage(_ message: String, location: String) -> ExitCode {
        context.console.error("export: \(message)")
        summary(outcome: "usage-error", code: .usage, location: location, report: nil, error: message)
        return .usage
    }

    private func failed(_ message: String, location: String) -> ExitCode {
        context.console.error("export: \(message)")
        summary(outcome: "failed", code: .failure, location: location, report: nil, error: message)
        return .failure
    }

    private func summary(outcome: String, code: ExitCode, location: String, report: S3Exporter.Report?, error: String?) {
        guard context.global.json else { return }
        JSONEventWriter(console: context.console).summary(command: "export", outcome: outcome, exit: code, S3ExportSummaryFields(
            location: location, endpoint: report?.endpoint, credentials: report?.credentials,
            uploaded: (report?.uploaded ?? []).map(ArtifactFields.init), present: (report?.present ?? []).map(ArtifactFields.init),
            failures: (report?.failures ?? []).map { ModelMessageFields(modelId: $0.modelId, message: $0.message) },
            abortedUploads: report?.abortedUploads ?? [], warnings: (report?.warnings ?? []).map(TextSanitizer.oneLine),
            bytesUploaded: report?.bytesUploaded ?? 0, indexEntries: report?.index?.models.count ?? 0, error: .terminal(error)))
    }
}

/// The `summary` of `export s3://…`.
private struct S3ExportSummaryFields: Encodable {
    var location: String
    @Null var endpoint: String?
    /// Where the credentials came from (`environment`, `profile ci (…)`, `anonymous`…), never a secret.
    @Null var credentials: String?
    var uploaded: [ArtifactFields]
    var present: [ArtifactFields]
    var failures: [ModelMessageFields]
    var abortedUploads: [String]
    var warnings: [String]
    var bytesUploaded: Int64
    var indexEntries: Int
    @Null var error: ErrorFields?
}

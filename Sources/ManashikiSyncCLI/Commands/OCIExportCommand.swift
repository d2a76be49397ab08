import Foundation
import ManashikiCore
import Manashiki
import ManashikiSync

/// `manashiki-sync export oci://HOST[:PORT]/REPO:TAG`: push the selected models to an OCI
/// registry as one artifact (`OCIPusher`). TLS as for every command (`registry.caBundle`,
/// `--ca-bundle`); credentials from the container tools' auth files; the manifest's
/// `policies.maxBytesPerSecond` limits the upload.
struct OCIExportCommand: Sendable {
    let context: CommandContext
    let options: ExportOptions

    /// 0 pushed, 3 some models could not be pushed (the tag lists the rest), 1 nothing could
    /// be pushed (the registry refused the credentials, the tag names something else, the
    /// registry is unreachable), 2 usage/manifest/lock error, 75 the store is locked.
    func run() async -> ExitCode {
        let export = ExportCommand(context: context, options: options)
        let cwd = context.console.currentDirectory
        guard let reference = parseReference() else { return .usage }
        let store: URL, manifest: Manifest?
        do { (store, manifest) = try ManifestLoader.store(context.global, currentDirectory: cwd) } catch {
            return context.report(error, command: "export")
        }
        let selection: BundleExporter.Selection
        switch export.resolveSelection(manifest) {
        case .success(let s): selection = s
        case .failure(let problem):
            context.console.error(problem.message)
            summary(outcome: problem.outcome, code: .usage, reference: reference.description, report: nil, error: problem.message)
            return .usage
        }
        let transport: any HTTPTransport
        do { transport = try Self.transport(manifest, caBundle: context.global.caBundle, cwd: cwd) } catch {
            context.console.error("export: \(error)")
            summary(outcome: "failed", code: .failure, reference: reference.description, report: nil, error: "\(error)")
            return .failure
        }
        let layout = StoreLayout(directory: store)
        let lock: StoreLock?
        switch await export.lockStore(layout) {
        case .success(let held): lock = held
        case .failure(let failure):
            let code = failure.code
            if code == .busy { summary(outcome: "locked", code: .busy, reference: reference.description, report: nil, error: "the store is locked by another run") }
            return code
        }
        defer { lock?.release() }
        var push = OCIPusher.Options()
        push.chunkSize = options.chunkSize
        push.mountFrom = options.mountFrom
        push.includePrivate = options.includePrivate
        push.rateLimiter = manifest?.policies.maxBytesPerSecond.map { BandwidthLimiter(bytesPerSecond: Int64($0)) }
        push.credentials = Self.credentials(for: reference, in: manifest)
        if let manifest { push.documentLimits = manifest.policies.documents }
        let verbose = context.global.verbosity > .quiet && !context.global.json
        let console = context.console
        let report: OCIPusher.Report
        do {
            report = try await OCIPusher.push(store: layout, to: reference, selection: selection, options: push, transport: transport,
                                              environment: SyncEnvironment(variables: console.environment), baseDirectory: manifest?.baseDirectory ?? cwd,
                                              progress: { id, sent, total in
                                                  if verbose && sent == total { console.line("\(id): \(ByteFormat.bytes(total)) in the registry") }
                                              })
        } catch {
            let message = SyncFailure(error).message
            context.console.error("export: \(message)")
            summary(outcome: "failed", code: .failure, reference: reference.description, report: nil, error: message)
            return .failure
        }
        return finish(report, reference: reference)
    }

    /// Prints the outcome (text or the JSON summary) and returns the exit code.
    private func finish(_ report: OCIPusher.Report, reference: OCIReference) -> ExitCode {
        report.restarted.forEach { context.console.warning($0) }
        report.failures.forEach { context.console.error($0.description) }
        let exported = report.exported.count
        let code: ExitCode = report.failures.isEmpty ? .success : exported > 0 ? .partialFailure : .failure
        if context.global.json {
            summary(outcome: code == .success ? "exported" : code == .partialFailure ? "partial-failure" : "failed", code: code,
                    reference: reference.description, report: report, error: nil)
        } else if context.global.verbosity > .quiet {
            let resumed = report.bytesResumed > 0 ? ", \(ByteFormat.bytes(report.bytesResumed)) of an interrupted push not sent again" : ""
            let digest = report.manifestDigest.map { " (\($0.prefix(19))…)" } ?? " (the tag was not moved)"
            context.console.line("exported \(exported) model(s) to \(reference)\(digest): \(report.uploaded.count) uploaded (\(ByteFormat.bytes(report.bytesUploaded))\(resumed)), \(report.present.count) already there, \(report.mounted.count) mounted")
        }
        return code
    }

    /// The reference, or nil with the usage error printed: a tag is required, plain http only to this machine.
    private func parseReference() -> OCIReference? {
        var problem: String
        switch OCIReference.parse(options.directory, requireTag: true) {
        case .success(let r):
            guard r.plainHTTP && !LoopbackHost.matches(r.host) else { return r }
            problem = "\(r) is plain http to another host — use oci:// (https); plain http is allowed only to this machine"
        case .failure(let p): problem = p.description
        }
        context.console.error("export: \(problem)")
        summary(outcome: "usage-error", code: .usage, reference: OCIReference.shown(options.directory), report: nil, error: problem)
        return nil
    }

    /// The transport: the manifest's (policies.network, registry.caBundle, --ca-bundle), else
    /// the default with `--ca-bundle`.
    static func transport(_ manifest: Manifest?, caBundle: String?, cwd: URL) throws -> any HTTPTransport {
        if let manifest { return try manifest.defaultTransport() }
        guard let caBundle else { return DefaultTransport() }
        return DefaultTransport(trust: try TLSTrust(caBundle: PathResolver.resolve(caBundle, against: cwd)))
    }

    /// The credentials of a manifest source for the same repository, when it names them.
    static func credentials(for reference: OCIReference, in manifest: Manifest?) -> OCICredentialSource? {
        manifest?.sources.lazy.compactMap { source -> OCICredentialSource? in
            guard case .oci(let r) = source.kind, r.registry == reference.registry else { return nil }
            return source.credentials
        }.first
    }

    private func summary(outcome: String, code: ExitCode, reference: String, report: OCIPusher.Report?, error: String?) {
        guard context.global.json else { return }
        JSONEventWriter(console: context.console).summary(command: "export", outcome: outcome, exit: code, OCIExportSummaryFields(
            reference: reference, manifestDigest: report?.manifestDigest,
            uploaded: (report?.uploaded ?? []).map(ArtifactFields.init), present: (report?.present ?? []).map(ArtifactFields.init),
            mounted: (report?.mounted ?? []).map(ArtifactFields.init),
            failures: (report?.failures ?? []).map { ModelMessageFields(modelId: $0.modelId, message: $0.message) },
            restarted: report?.restarted ?? [], bytesUploaded: report?.bytesUploaded ?? 0, bytesResumed: report?.bytesResumed ?? 0,
            indexEntries: report?.index.models.count ?? 0, error: .terminal(error)))
    }
}

/// The `summary` of `export oci://…`.
private struct OCIExportSummaryFields: Encodable {
    var reference: String
    @Null var manifestDigest: String?
    var uploaded: [ArtifactFields]
    var present: [ArtifactFields]
    var mounted: [ArtifactFields]
    var failures: [ModelMessageFields]
    var restarted: [String]
    var bytesUploaded: Int64
    var bytesResumed: Int64
    var indexEntries: Int
    @Null var error: ErrorFields?
}

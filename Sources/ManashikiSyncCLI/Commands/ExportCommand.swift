import Foundation
import Manashiki
import ManashikiSync

/// `manashiki-sync export DIR`: write the store's verified models (or the manifest's, or the
/// lock's) into a content-addressed bundle. No network, no key.
package struct ExportCommand: Sendable {
    /// The context.
    package let context: CommandContext
    /// The export options.
    package let options: ExportOptions

    /// Creates the command.
    package init(context: CommandContext, options: ExportOptions) {
        self.context = context
        self.options = options
    }

    /// Runs it: 0 everything selected is in the bundle, 3 some models could not be exported,
    /// 1 none could (or the bundle or store is unusable), 2 usage/manifest/lock error, 75 the
    /// store is locked by a running sync or the bundle by another export. Every outcome,
    /// usage errors included, ends with one `summary` event under `--json`.
    package func run() async -> ExitCode {
        if OCIReference.isCommandLineReference(options.directory) { return await OCIExportCommand(context: context, options: options).run() }
        if S3Location.isS3URL(options.directory) { return await S3ExportCommand(context: context, options: options).run() }
        if let refusal = Self.notADirectory(options.directory) {
            context.console.error("export: \(refusal)")
            summary(outcome: "usage-error", code: .usage, bundle: options.directory, report: nil, error: refusal)
            return .usage
        }
        let cwd = context.console.currentDirectory
        let store: URL, manifest: Manifest?
        do { (store, manifest) = try ManifestLoader.store(context.global, currentDirectory: cwd) } catch {
            return context.report(error, command: "export")
        }
        let bundle = BundleLayout(directory: PathResolver.resolve(options.directory, against: cwd))
        let selection: BundleExporter.Selection
        switch resolveSelection(manifest) {
        case .success(let s): selection = s
        case .failure(let problem):
            context.console.error(problem.message)
            summary(outcome: problem.outcome, code: .usage, bundle: bundle.directory.path, report: nil, error: problem.message)
            return .usage
        }
        let layout = StoreLayout(directory: store)
        // Hold the store's lock so a sync cannot replace files or the state mid-export.
        let lock: StoreLock?
        switch await lockStore(layout) {
        case .success(let held): lock = held
        case .failure(let failure):
            let code = failure.code
            if code == .busy { summary(outcome: "locked", code: .busy, bundle: bundle.directory.path, report: nil, error: "the store is locked by another run") }
            return code
        }
        defer { lock?.release() }
        let report: BundleExporter.Report
        do {
            // trust.tuf: the chain the store trusts goes with the models, or nothing is written.
            let metadata = try BundleExporter.signedMetadata(of: layout, required: manifest?.trust.tuf != nil)
            report = try BundleExporter.export(store: layout, to: bundle, selection: selection, includePrivate: options.includePrivate,
                                               signedMetadata: metadata, lockTimeout: context.global.lockTimeout)
        } catch let busy as BundleExporter.BundleBusy {
            context.console.error(busy.description)
            summary(outcome: "locked", code: .busy, bundle: bundle.directory.path, report: nil, error: busy.description)
            return .busy
        } catch {
            context.console.error("\(error)")
            summary(outcome: "failed", code: .failure, bundle: bundle.directory.path, report: nil, error: "\(error)")
            return .failure
        }
        if context.global.verbosity > .quiet && !report.removedTemporaries.isEmpty {
            context.console.warning("removed \(report.removedTemporaries.count) temporary file(s) an interrupted export left in \(bundle.directory.path)")
        }
        // A damaged blob is worth a warning even with --quiet: the bundle was wrong until now.
        report.repaired.filter(\.replaced).forEach { context.console.warning("\(bundle.directory.path): \($0.description)") }
        report.failures.forEach { context.console.error($0.description) }
        let exported = report.copied.count + report.present.count
        let code: ExitCode = report.failures.isEmpty ? .success : exported > 0 ? .partialFailure : .failure
        if context.global.json {
            summary(outcome: code == .success ? "exported" : code == .partialFailure ? "partial-failure" : "failed", code: code, bundle: bundle.directory.path, report: report, error: nil)
        } else if context.global.verbosity > .quiet {
            let repaired = report.repaired.filter(\.replaced).count
            context.console.line("exported \(exported) model(s) to \(bundle.directory.path): \(report.copied.count) copied (\(ByteFormat.bytes(report.bytesCopied))\(repaired > 0 ? ", \(repaired) replacing a damaged blob" : "")), \(report.present.count) already there (verified); the index lists \(report.index.models.count) artifact(s)")
            if let signed = report.signedMetadata {
                context.console.line("signed metadata (trust.tuf) copied to \(bundle.tufDirectory.path): roots \(signed.rootVersions.map(String.init).joined(separator: ", ")), timestamp v\(signed.timestampVersion), valid until \(signed.timestampExpiresText); an offline machine installs nothing new from this bundle after that — export again from a store that synced online")
            }
        }
        return code
    }

    /// Why `text` is refused as a bundle directory: it starts like a URL (`gs://…`, `s3:/…`,
    /// `https://…`) that export cannot write, rather than creating a local directory named after
    /// the scheme. A directory whose name really starts so is written `./NAME`.
    static func notADirectory(_ text: String) -> String? {
        guard let colon = text.firstIndex(of: ":"), !text[..<colon].isEmpty, !text[..<colon].contains("/"),
              let first = text.unicodeScalars.first, first.isASCII, CharacterSet.letters.contains(first),
              text[..<colon].unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "+.-".unicodeScalars.contains($0)) }) else { return nil }
        let scheme = text[..<colon].lowercased()
        let hint = scheme == "s3" ? "write s3://BUCKET/PREFIX/" : scheme == "oci" ? "write oci://HOST/REPO:TAG" : "export writes a directory, oci://HOST/REPO:TAG or s3://BUCKET/PREFIX/"
        return "\(SecretShape.echo(text)) looks like a \(scheme): URL, which export cannot write — \(hint) (to write a local directory of that name, put ./ before it)"
    }

    /// A usage problem with `--select`.
    struct SelectionProblem: Error {
        var outcome: String
        var message: String
    }

    /// What `--select` names: the store, the manifest's models, or the lock file's artifacts.
    func resolveSelection(_ manifest: Manifest?) -> Result<BundleExporter.Selection, SelectionProblem> {
        switch options.selection {
        case .store: return .success(.store)
        case .manifest:
            guard let manifest else { return .failure(SelectionProblem(outcome: "usage-error", message: "--select manifest needs the manifest: pass --manifest PATH")) }
            return .success(.models(manifest.models.map(\.id)))
        case .lock:
            do {
                return .success(.artifacts(try LockFile.read(ManifestLoader.lockURL(context.global, currentDirectory: context.console.currentDirectory)).models))
            } catch {
                return .failure(SelectionProblem(outcome: "lock-error", message: "\(error)"))
            }
        }
    }

    /// Why the store's lock was not taken: the exit code (its message already printed).
    struct LockFailure: Error { var code: ExitCode }

    /// Takes the store's lock (when the store has metadata), so a sync cannot replace files or
    /// the state mid-export; the failure is the exit code, its message printed.
    func lockStore(_ layout: StoreLayout) async -> Result<StoreLock?, LockFailure> {
        guard FileManager.default.fileExists(atPath: layout.metadataDirectory.path) else { return .success(nil) }
        do {
            guard let lock = try await StoreLock.acquire(layout, timeout: context.global.lockTimeout) else {
                context.console.error(StoreLock.heldMessage(layout, waited: context.global.lockTimeout))
                return .failure(LockFailure(code: .busy))
            }
            return .success(lock)
        } catch {
            context.console.error("\(SyncFailure(error).message)")
            return .failure(LockFailure(code: .failure))
        }
    }

    private func summary(outcome: String, code: ExitCode, bundle: String, report: BundleExporter.Report?, error: String?) {
        guard context.global.json else { return }
        JSONEventWriter(console: context.console).summary(command: "export", outcome: outcome, exit: code, ExportSummaryFields(
            bundle: bundle,
            copied: (report?.copied ?? []).map(ArtifactFields.init), present: (report?.present ?? []).map(ArtifactFields.init),
            failures: (report?.failures ?? []).map { ModelMessageFields(modelId: $0.modelId, message: $0.message) },
            repaired: (report?.repaired ?? []).map(RepairedBlobFields.init), removedTemporaries: report?.removedTemporaries ?? [],
            bytesCopied: report?.bytesCopied ?? 0, bytesVerified: report?.bytesVerified ?? 0, indexEntries: report?.index.models.count ?? 0,
            signedMetadata: report?.signedMetadata.map(SignedMetadataFields.init), error: .terminal(error)))
    }
}

/// A damaged blob an export found in the bundle.
private struct RepairedBlobFields: Encodable {
    var modelId: String
    var version: String
    var sha256: String
    var problem: String
    var replaced: Bool

    init(_ repaired: BundleExporter.Repair) {
        modelId = repaired.artifact.modelId
        version = repaired.artifact.version
        sha256 = repaired.artifact.sha256
        problem = repaired.problem
        replaced = repaired.replaced
    }
}

/// The `summary` of `export`.
private struct ExportSummaryFields: Encodable {
    var bundle: String
    var copied: [ArtifactFields]
    var present: [ArtifactFields]
    var failures: [ModelMessageFields]
    var repaired: [RepairedBlobFields]
    var removedTemporaries: [String]
    var bytesCopied: Int64
    var bytesVerified: Int64
    var indexEntries: Int
    /// Only with `trust.tuf` (absent otherwise, so the schema of other exports is unchanged).
    var signedMetadata: SignedMetadataFields?
    @Null var error: ErrorFields?
}

/// The signed metadata an export copied into `<bundle>/tuf/`.
private struct SignedMetadataFields: Encodable {
    var rootVersions: [Int]
    var timestampVersion: Int
    var timestampExpires: String
    var files: Int

    init(_ copy: TUFRepositoryCopy) {
        rootVersions = copy.rootVersions
        timestampVersion = copy.timestampVersion
        timestampExpires = copy.timestampExpiresText
        files = copy.files.count
    }
}

import Foundation
import Manashiki
import ManashikiSync

/// `manashiki-sync verify [--repair]`: re-hash every installed file against the state (and the
/// manifest), offline; report corrupt, missing, unreadable and unknown files; optionally
/// re-download what is broken.
package struct VerifyCommand: Sendable {
    /// One file's finding, as printed and in JSON.
    struct Finding: Sendable {
        var modelId: String
        /// `ok`, `corrupt`, `missing`, `unreadable`, `unknown`, `not-installed`; with
        /// `trust.modelSigning`, `unsigned` and `signature-refused` for intact files.
        var verdict: String
        var version: String?
        var sha256: String?
        var expectedSha256: String?
        var detail: String
        /// Whether it counts as damage (exit 4).
        var damaged: Bool { ["corrupt", "missing", "unreadable"].contains(verdict) || isSignatureProblem }
        /// Whether the file is intact but its publisher signature is missing or refused.
        var isSignatureProblem: Bool { ["unsigned", "signature-refused"].contains(verdict) }
    }

    /// The context.
    package let context: CommandContext
    /// The verify options.
    package let options: VerifyOptions

    /// Creates the command.
    package init(context: CommandContext, options: VerifyOptions) {
        self.context = context
        self.options = options
    }

    /// Runs it.
    package func run() async -> ExitCode {
        let store: URL, manifest: Manifest?
        do { (store, manifest) = try ManifestLoader.store(context.global, currentDirectory: context.console.currentDirectory) } catch {
            return context.report(error, command: "verify")
        }
        if options.repair && manifest == nil {
            context.console.error("--repair needs the manifest (it says which registry to download from): pass --manifest PATH")
            return .usage
        }
        let layout = StoreLayout(directory: store)
        // Without a manifest nothing says what the store should hold; with one, a deleted store
        // is a store whose every model is missing.
        guard manifest != nil || FileManager.default.fileExists(atPath: layout.directory.path) else {
            context.console.error("the store \(layout.directory.path) does not exist — run `manashiki-sync sync` first, or pass --store DIR")
            emitSummary(outcome: "no-store", code: .failure, findings: [], bytes: 0, note: nil)
            return .failure
        }
        if options.repair, let manifest { return await repair(manifest, layout: layout) }
        guard let found = await check(layout, manifest: manifest) else { return .busy }
        let signatures: [String: SignatureAudit.Verdict]
        do { signatures = try manifest.map { try SignatureAudit.check(found, layout: layout, manifest: $0) } ?? [:] } catch {
            // A pinned key or root that cannot be read: a configuration error (exit 2).
            return context.report(ConfigurationError(lines: ["trust.modelSigning: \(error)"], problems: []), command: "verify")
        }
        return finish(Self.findings(found, manifest: manifest, signatures: signatures), bytes: found.bytesHashed, note: found.stateNote,
                      repaired: nil, layout: layout)
    }

    /// `--repair`: the library re-hashes, downloads the damaged models again (and looks again
    /// for the publisher signature of each intact model whose signature is missing or refused)
    /// and verifies again; this only renders what it found.
    private func repair(_ manifest: Manifest, layout: StoreLayout) async -> ExitCode {
        let key: LoadedKey
        do { key = try context.loadKey(manifest: manifest) } catch { return context.report(error, command: "verify") }
        // What is damaged is printed when found, before the repair's download events.
        guard let report = await ReconcileRun(context: context, manifest: manifest, key: key, command: "verify", dryRun: false,
                                              jsonSummary: false).repair(onVerified: { before in
            let signatures = (try? SignatureAudit.check(before, layout: layout, manifest: manifest)) ?? [:]
            self.print(Self.findings(before, manifest: manifest, signatures: signatures), note: before.stateNote, repairing: true)
        }) else { return .usage }
        if report.storeBusy { return lockedExit(layout) }
        if let failure = report.failure {
            // A read-only store, say: report what happened, not "locked".
            let advice = ErrorAdvice.text(for: failure)
            context.console.error(ErrorAdvice.line(modelId: nil, what: advice.what, todo: advice.todo))
            return .failure
        }
        if let sync = report.sync {
            let (code, _) = ReconcileRun.syncExit(sync)
            if code == .interrupted || code == .terminated { return code }
        }
        let before = Self.findings(report.before, manifest: manifest, signatures: report.signaturesBefore)
        guard report.sync != nil else {
            return finish(before, bytes: report.before.bytesHashed, note: report.before.stateNote, repaired: nil, layout: layout)
        }
        return finish(Self.findings(report.after, manifest: manifest, signatures: report.signaturesAfter), bytes: report.before.bytesHashed + report.after.bytesHashed,
                      note: report.after.stateNote, repaired: report.repaired.count, layout: layout)
    }

    private func lockedExit(_ layout: StoreLayout) -> ExitCode {
        context.console.error(StoreLock.heldMessage(layout, waited: context.global.lockTimeout))
        emitSummary(outcome: "locked", code: .busy, findings: [], bytes: 0, note: nil)
        return .busy
    }

    /// Verifies under the store lock (or without it on a read-only store; never creating a
    /// store that does not exist); nil when locked.
    private func check(_ layout: StoreLayout, manifest: Manifest?) async -> VerificationReport? {
        let platform = (manifest?.device ?? .current).platform
        let expected = manifest?.models.filter { $0.applies(to: platform) }.map(\.id) ?? []
        switch await Verifier.verifyHoldingLock(layout, expecting: expected, timeout: context.global.lockTimeout) {
        case .storeBusy:
            _ = lockedExit(layout)
            return nil
        case .report(let report, let unlocked):
            if let unlocked, context.global.verbosity == .verbose && !context.global.json {
                context.console.line("note: verifying without the store lock (\(unlocked.message))")
            }
            return report
        }
    }

    /// The findings, sorted by model id, with the manifest's view added.
    static func findings(_ report: VerificationReport, manifest: Manifest?, signatures: [String: SignatureAudit.Verdict] = [:]) -> [Finding] {
        let wanted = Set(manifest?.models.map(\.id) ?? [])
        var result = report.files.map { id, verdict -> Finding in
            switch verdict {
            case .ok(let v, let sha): return signed(Finding(modelId: id, verdict: "ok", version: v, sha256: sha, detail: "intact"), signatures[id])
            case .corrupt(let expected, let actual):
                return Finding(modelId: id, verdict: "corrupt", sha256: actual, expectedSha256: expected,
                               detail: "SHA-256 \(actual.prefix(12))… differs from the recorded \(expected.prefix(12))…")
            case .missing:
                return Finding(modelId: id, verdict: "missing", detail: report.storeExists
                               ? "recorded as installed, but the file is gone" : "listed in the manifest, and the store does not exist")
            case .unknown(let sha):
                let listed = wanted.contains(id) ? "listed in the manifest but not recorded: the next sync re-checks it"
                                                 : "not recorded by any sync and not in the manifest: copied in by hand?"
                return Finding(modelId: id, verdict: "unknown", sha256: sha, detail: listed)
            case .unreadable(let why): return Finding(modelId: id, verdict: "unreadable", detail: TextSanitizer.oneLine(why))
            }
        }
        if let manifest {
            let platform = (manifest.device ?? .current).platform
            for spec in manifest.models where spec.applies(to: platform) && report.files[spec.id] == nil {
                result.append(Finding(modelId: spec.id, verdict: "not-installed",
                                      detail: "listed in the manifest but not installed (run `manashiki-sync plan` to see why)"))
            }
        }
        return result.sorted { $0.modelId < $1.modelId }
    }

    /// What to do about an intact file whose publisher signature is missing or refused.
    static let signatureTodo = "the file stays, but no run keeps it as verified until a signature by a pinned publisher covers it: get the publisher's model.sig to a source or signatureURL and run `manashiki-sync sync`, or pin the right key or root (docs/publisher-signatures.md)"

    /// What `--repair` does about it.
    static let signatureRepairTodo = "--repair looks for a signature by a pinned publisher at every source and signatureURL again; the file stays, and stays reported if none verifies"

    /// An intact file's finding with its publisher signature's verdict.
    static func signed(_ finding: Finding, _ verdict: SignatureAudit.Verdict?) -> Finding {
        var f = finding
        switch verdict {
        case nil: break
        case .verified(let signer): f.detail = TextSanitizer.oneLine("intact, signed by \(signer)")
        case .unsigned:
            f.verdict = "unsigned"
            f.detail = "intact, but the store holds no publisher signature for it and trust.modelSigning requires one"
        case .refused(let failure):
            f.verdict = "signature-refused"
            f.detail = TextSanitizer.oneLine("intact, but its publisher signature no longer verifies (\(failure.problem.code)): \(failure)")
        }
        return f
    }

    /// Writes the findings: one stderr line per damaged file in every mode (as `sync --json`
    /// does), then `verify.file` lines with `--json` or the other findings as text.
    private func print(_ findings: [Finding], note: String?, repairing: Bool = false) {
        for f in findings where f.damaged {
            var todo = repairing ? "downloaded again by --repair" : "run `manashiki-sync verify --repair` (or `sync`) to download it again"
            if f.isSignatureProblem { todo = repairing ? Self.signatureRepairTodo : Self.signatureTodo }
            context.console.error(ErrorAdvice.line(modelId: f.modelId, what: "\(f.verdict): \(f.detail)", todo: todo))
        }
        guard !context.global.json else {
            let writer = JSONEventWriter(console: context.console)
            for f in findings { writer.emit("verify.file", FindingFields(f)) }
            return
        }
        guard context.global.verbosity > .quiet else { return }
        if let note { context.console.line("note: \(note)") }
        for f in findings where !f.damaged && (f.verdict != "ok" || context.global.verbosity == .verbose) {
            context.console.line("\(f.modelId): \(f.verdict) — \(f.detail)")
        }
        for f in findings where f.verdict == "ok" && context.global.verbosity < .verbose {
            context.console.line("\(f.modelId): ok \(f.version ?? "")")
        }
    }

    private func finish(_ findings: [Finding], bytes: Int64, note: String?, repaired: Int?, layout: StoreLayout) -> ExitCode {
        let partials = StorageDirectory.keptPartials(in: layout)
        let damaged = findings.filter(\.damaged).count
        let code: ExitCode = damaged == 0 ? .success : .damaged
        // A store that does not exist (never synced, or deleted) is not "damaged": `status` says
        // the same of it. Its models are still missing (exit 4), so a check of the store fails.
        let exists = FileManager.default.fileExists(atPath: layout.directory.path)
        let outcome = !exists && repaired == nil ? "no-store" : damaged > 0 ? "damaged" : repaired != nil ? "repaired" : "healthy"
        if repaired == nil || context.global.json { print(findings, note: note) }
        else if damaged > 0 { print(findings.filter(\.damaged), note: nil) }
        if context.global.json {
            emitSummary(outcome: outcome, code: code, findings: findings, bytes: bytes, note: note, repaired: repaired, partials: partials)
        } else if context.global.verbosity > .quiet {
            var c: [String: Int] = [:]
            for f in findings { c[f.verdict, default: 0] += 1 }
            let kinds = ["ok", "corrupt", "missing", "unreadable", "unknown", "not-installed"] + ["unsigned", "signature-refused"].filter { c[$0] != nil }
            let counts = kinds.map { "\(c[$0, default: 0]) \($0)" }
            let repairedText = repaired.map { ", \($0) repaired" } ?? ""
            PartialsView.lines(partials, now: context.console.date()).forEach(context.console.line)
            context.console.line("verify: \(outcome) — \(counts.joined(separator: ", "))\(repairedText); \(ByteFormat.bytes(bytes)) hashed")
        }
        return code
    }

    private func emitSummary(outcome: String, code: ExitCode, findings: [Finding], bytes: Int64, note: String?, repaired: Int? = nil,
                             partials: [StorageDirectory.KeptPartial] = []) {
        guard context.global.json else { return }
        var counts: [String: Int] = [:]
        for key in ["ok", "corrupt", "missing", "unreadable", "unknown", "not-installed"] { counts[key] = 0 }
        for f in findings { counts[f.verdict, default: 0] += 1 }
        JSONEventWriter(console: context.console).summary(command: "verify", outcome: outcome, exit: code, VerifySummaryFields(
            files: findings.map(FindingFields.init), counts: counts,
            bytesHashed: bytes, stateNote: note, repaired: repaired, partials: PartialsView.fields(partials, now: context.console.date())))
    }
}

/// `verify.file`, and each of the summary's `files`.
private struct FindingFields: Encodable {
    var modelId: String
    var verdict: String
    @Null var version: String?
    @Null var sha256: String?
    @Null var expectedSha256: String?
    var detail: String

    init(_ f: VerifyCommand.Finding) {
        modelId = f.modelId
        verdict = f.verdict
        version = f.version
        sha256 = f.sha256
        expectedSha256 = f.expectedSha256
        detail = f.detail
    }
}

/// The `summary` of `verify`.
private struct VerifySummaryFields: Encodable {
    var files: [FindingFields]
    var counts: [String: Int]
    var bytesHashed: Int64
    @Null var stateNote: String?
    @Null var repaired: Int?
    @Null var error: ErrorFields? = nil
    var partials: [PartialFields]
}

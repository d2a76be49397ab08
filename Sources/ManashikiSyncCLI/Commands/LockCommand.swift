import Foundation
import Manashiki
import ManashikiSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `manashiki-sync lock`: resolve the manifest against the registry's catalog and write
/// `manashiki.lock.json` beside it; `lock --check` compares an existing lock with the manifest
/// and the catalog and writes nothing (for CI).
package struct LockCommand: Sendable {
    /// The context.
    package let context: CommandContext
    /// The lock options.
    package let options: LockOptions

    /// Creates the command.
    package init(context: CommandContext, options: LockOptions) {
        self.context = context
        self.options = options
    }

    /// Runs it. `lock`: 0 written, 1 some model cannot be locked (nothing written) or the
    /// registry is unreachable, 2 usage/manifest/key error. `lock --check`: 0 up to date,
    /// 10 the lock differs from the manifest or the catalog, 1 registry unreachable,
    /// 2 usage/manifest/key/lock error.
    package func run() async -> ExitCode {
        let cwd = context.console.currentDirectory
        let manifest: Manifest
        do { manifest = try ManifestLoader.load(context.global, currentDirectory: cwd) } catch {
            return context.report(error, command: "lock")
        }
        let lockURL = ManifestLoader.lockURL(context.global, currentDirectory: cwd)
        var existing: LockFile?
        if options.check {
            do { existing = try LockFile.read(lockURL) } catch {
                context.console.error("\(error)")
                emit(outcome: "lock-error", code: .usage, lockURL: lockURL, differences: [], error: "\(error)")
                return .usage
            }
        }
        let key: LoadedKey
        do { key = try context.loadKey(manifest: manifest) } catch { return context.report(error, command: "lock") }
        var registry: ManashikiClient
        do {
            registry = try ManashikiClient(apiKey: key.value, baseURL: manifest.registry.baseURL, transport: manifest.defaultTransport(),
                                           storageDirectory: manifest.storeDirectory)
            registry.documentLimits = manifest.policies.documents
        } catch {
            context.console.error("cannot use the registry settings: \(SyncFailure(error).description)")
            return .usage
        }
        let retry = RetryPolicy(maxAttempts: manifest.policies.maxAttempts, maxRetryAfter: .seconds(manifest.policies.maxRetryAfterSeconds))
        if let existing { return await check(existing, manifest: manifest, registry: registry, retry: retry, lockURL: lockURL) }

        var lock: LockFile, problems: [LockResolver.Problem], leftOut: [LockResolver.Problem]
        do { (lock, problems, leftOut) = try await LockResolver.resolve(manifest, registry: registry, retry: retry) } catch {
            return unreachable(error, lockURL: lockURL)
        }
        if manifest.trust.tuf != nil {
            // trust.tuf: only what the signed repository vouches for is locked, with its versions.
            do {
                let (signed, unsigned, optional) = try await LockResolver.confirmSigned(lock, manifest: manifest, transport: registry.transport)
                (lock, problems, leftOut) = (signed, problems + unsigned, leftOut + optional)
            } catch {
                let what = "the lock was not written: the signed metadata (trust.tuf) could not be checked: \(SyncFailure(error).message)"
                context.console.error(what)
                emit(outcome: "cannot-lock", code: .failure, lockURL: lockURL, differences: [], error: what)
                return .failure
            }
        }
        if context.global.verbosity > .quiet {
            leftOut.forEach { context.console.warning("\($0.modelId): optional, not locked: \($0.message)") }
        }
        guard problems.isEmpty else {
            problems.forEach { context.console.error($0.description) }
            context.console.error("the lock was not written: \(problems.count) model(s) cannot be locked — fix the manifest or wait for the registry, then run `manashiki-sync lock` again")
            emit(outcome: "cannot-lock", code: .failure, lockURL: lockURL, differences: problems.map { ($0.modelId, $0.message) }, error: nil)
            return .failure
        }
        do { try lock.write(to: lockURL) } catch {
            // Name the lock file, not the SDK's temporary file or "the storage directory".
            let reason: String
            if case .fileSystem(_, _, let code)? = error as? APIError { reason = String(cString: strerror(code)) } else { reason = SyncFailure(error).message }
            let what = "\(lockURL.path): cannot be written (\(reason))"
            context.console.error("\(what) — check that its directory exists and this user may write there, then run `manashiki-sync lock` again")
            emit(outcome: "failed", code: .failure, lockURL: lockURL, differences: [], error: what)
            return .failure
        }
        if context.global.json {
            emit(outcome: "locked", code: .success, lockURL: lockURL, differences: [], error: nil, models: lock.models)
        } else if context.global.verbosity > .quiet {
            context.console.line("locked \(lock.models.count) model(s) in \(lockURL.path)")
            if context.global.verbosity == .verbose {
                lock.models.forEach { context.console.line("  \($0.modelId) \($0.version) sha256 \($0.sha256.prefix(12))… \(ByteFormat.bytes($0.size))") }
            }
        }
        return .success
    }

    /// The manifest is compared first, without the network: when the registry cannot be
    /// reached, a lock that no longer matches the manifest still exits 10 (with a warning that
    /// the catalog was not compared); only a lock that matches the manifest exits 1, since
    /// nothing is known about the catalog.
    /// With `trust.tuf` (or versions in the lock), the lock's signed metadata versions are
    /// compared with the store's too (`SignedMetadataComparison`): only a lock with none for a
    /// manifest that sets `trust.tuf` is out of date; other differences are said, not failed.
    private func check(_ lock: LockFile, manifest: Manifest, registry: ManashikiClient, retry: RetryPolicy, lockURL: URL) async -> ExitCode {
        let manifestDifferences = LockDrift.manifestDifferences(lock, manifest)
        let signed = signedComparison(lock, manifest: manifest)
        report(signed)
        let signedDiffers = signed?.isDifference ?? false
        let catalog: [ModelEntry]
        do { catalog = try await retry.run({ try await registry.listModels() }) } catch {
            guard !manifestDifferences.isEmpty || signedDiffers else { return unreachable(error, lockURL: lockURL, signed: signed) }
            context.console.warning("the registry's catalog could not be read (\(SyncFailure(error).message)); only the manifest was compared with the lock")
            manifestDifferences.forEach { context.console.error($0.description) }
            emit(outcome: "out-of-date", code: .changesPending, lockURL: lockURL, differences: manifestDifferences.map { ($0.modelId, $0.message) },
                 error: nil, catalogCompared: false, signed: signed)
            return .changesPending
        }
        let differences = manifestDifferences + LockDrift.catalogDifferences(lock, catalog)
        if differences.isEmpty && !signedDiffers {
            emit(outcome: "up-to-date", code: .success, lockURL: lockURL, differences: [], error: nil, signed: signed)
            if !context.global.json && context.global.verbosity > .quiet {
                context.console.line("\(lockURL.lastPathComponent) is up to date: \(lock.models.count) model(s) match the manifest and the catalog")
            }
            return .success
        }
        differences.forEach { context.console.error($0.description) }
        emit(outcome: "out-of-date", code: .changesPending, lockURL: lockURL, differences: differences.map { ($0.modelId, $0.message) }, error: nil,
             signed: signed)
        return .changesPending
    }

    private func unreachable(_ error: any Error, lockURL: URL, signed: SignedMetadataComparison? = nil) -> ExitCode {
        let advice = ErrorAdvice.text(for: SyncFailure(error), rerun: options.check ? "manashiki-sync lock --check" : "manashiki-sync lock")
        context.console.error(ErrorAdvice.line(modelId: nil, what: advice.what, todo: advice.todo))
        emit(outcome: "failed", code: .failure, lockURL: lockURL, differences: [], error: advice.what, signed: signed)
        return .failure
    }

    private func emit(outcome: String, code: ExitCode, lockURL: URL, differences: [(String, String)], error: String?, models: [PinnedArtifact] = [],
                      catalogCompared: Bool? = nil, signed: SignedMetadataComparison? = nil) {
        guard context.global.json else { return }
        JSONEventWriter(console: context.console).summary(command: options.check ? "lock --check" : "lock", outcome: outcome, exit: code, LockSummaryFields(
            lockFile: lockURL.path, catalogCompared: options.check ? (catalogCompared ?? (outcome == "up-to-date" || outcome == "out-of-date")) : nil,
            models: models.map(ArtifactFields.init), differences: differences.map { ModelMessageFields(modelId: $0.0, message: $0.1) },
            error: .terminal(error), signedMetadata: signed.map(SignedComparisonFields.init)))
    }
}

/// The `summary` of `lock` and `lock --check`.
private struct LockSummaryFields: Encodable {
    var lockFile: String
    @Null var catalogCompared: Bool?
    var models: [ArtifactFields]
    var differences: [ModelMessageFields]
    @Null var error: ErrorFields?
    /// `lock --check`: how the lock's signed metadata versions stand against the store's.
    @Null var signedMetadata: SignedComparisonFields?
}

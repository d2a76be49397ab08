import Foundation
import Manashiki
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes a store's verified models into a content-addressed bundle (`manashiki-sync export`).
/// No network. Each blob is copied into a temporary file, hashed in the same pass and checked
/// against the store's record, then flushed, renamed to `blobs/sha256/<hex>` and the directory
/// flushed (`DurableFile.commit`); the index is replaced atomically last.
///
/// Running it again into the same bundle:
/// - **Existing blobs are verified, not trusted.** A blob already at its final name is hashed
///   (one sequential read, cheaper than the copy it saves); a blob whose size or SHA-256 does
///   not match its name (bit rot, a truncated `rsync`, a hand edit) is replaced by a verified
///   copy from the store and reported in `Report.repaired`. When the store cannot provide one,
///   the damaged blob is removed (it is worth nothing: every reader would reject it) and the
///   model is reported as a failure. Entries of earlier exports that this run does not select
///   stay in the index when their blob is still there with the recorded size.
/// - **Leftovers of a crashed export are removed.** A killed export can leave only temporary
///   files (`blobs/sha256/.<hex>.<random>.tmp`, `index.json.tmp.<random>`), never a partial
///   file under a final name; the next export removes those nobody holds (`Report.removedTemporaries`).
/// - **Private models stay out unless asked for.** A bundle is meant to be copied and served
///   (nginx on a site network), and anyone who can read it has the bytes: a model whose recorded
///   visibility is not public is exported only with `includePrivate` (`--include-private`);
///   otherwise it is reported as not exported, saying so. (A model recorded without facts, by
///   a store older than them, is exported as before.)
/// - **One export at a time per bundle.** The bundle directory is `flock`ed for the whole run;
///   a second export into it waits up to its `lockTimeout`, then fails with `BundleBusy`
///   instead of merging indexes badly (on a file system without locks, such as some network
///   mounts, the export runs unlocked).
///
/// ```swift
/// let report = try BundleExporter.export(store: StoreLayout(directory: store),
///                                        to: BundleLayout(directory: usbDisk), selection: .store)
/// ```
public enum BundleExporter {
    /// Which models to export.
    public enum Selection: Sendable, Hashable {
        /// Every model the store's state records.
        case store
        /// These model ids (a manifest's models).
        case models([String])
        /// Exactly these artifacts (a lock file's).
        case artifacts([PinnedArtifact])
    }

    /// What an export did.
    public struct Report: Sendable, Hashable {
        /// Artifacts copied into the bundle by this run (including those in `repaired`).
        public var copied: [PinnedArtifact] = []
        /// Artifacts the bundle already held, verified by their SHA-256 (not copied again).
        public var present: [PinnedArtifact] = []
        /// Blobs that were already in the bundle but damaged, and what was wrong; each was
        /// replaced by a verified copy (it is also in `copied`) or, when the store could not
        /// provide one, removed (the model is then in `failures`).
        public var repaired: [Repair] = []
        /// Models that could not be exported, with the reason and what to do.
        public var failures: [Failure] = []
        /// Bytes copied.
        public var bytesCopied: Int64 = 0
        /// Bytes of existing blobs read to verify them.
        public var bytesVerified: Int64 = 0
        /// Temporary files of an earlier, interrupted export that were removed.
        public var removedTemporaries: [String] = []
        /// The index written.
        public var index = BundleIndex(models: [])
        /// The signed metadata copied into `<bundle>/tuf/` (nil: none, no `trust.tuf`).
        public var signedMetadata: TUFRepositoryCopy?
    }

    /// A damaged blob found in the bundle.
    public struct Repair: Sendable, Hashable, CustomStringConvertible {
        /// The artifact the blob should hold.
        public var artifact: PinnedArtifact
        /// What was wrong with it (`has 10 bytes, not 64`, `has sha256 7e0e…`).
        public var problem: String
        /// Whether it was replaced by a verified copy (false: removed, see the failure).
        public var replaced: Bool
        /// `blobs/sha256/<hex> (<id> <version>) <problem>; replaced with the store's verified copy`.
        public var description: String {
            "\(BundleLayout.blobPath(artifact.sha256)) (\(artifact.modelId) \(artifact.version)) \(problem); "
                + (replaced ? "replaced with the store's verified copy" : "removed from the bundle")
        }
    }

    /// A model that was not exported.
    public struct Failure: Sendable, Hashable, CustomStringConvertible {
        /// The model id.
        public var modelId: String
        /// Why, and what to do.
        public var message: String
        /// `<id>: <message>`.
        public var description: String { "\(modelId): \(message)" }
    }

    /// Another export holds the bundle's lock.
    public struct BundleBusy: Error, LocalizedError, Sendable, Hashable, CustomStringConvertible {
        /// The bundle directory.
        public var directory: String
        /// `<dir>: another export is writing this bundle — try again when it has finished`.
        public var description: String { "\(directory): another export is writing this bundle — try again when it has finished" }
        /// The description.
        public var errorDescription: String? { description }
    }

    /// Exports `selection` from `store` into `bundle` (private models only with `includePrivate`)
    /// and, when given, the store's signed metadata (`signedMetadata(of:required:)`) into
    /// `<bundle>/tuf/`, after the blobs and before the index.
    ///
    /// `lockTimeout` is not zero by default: a process spawned elsewhere in this program holds
    /// a copy of every descriptor until it `exec`s, so a lock released an instant ago can still
    /// look held for a moment (`FileLock`).
    /// - Throws: `ArtifactFileError` when nothing can be exported at all (no usable state, an
    ///   index of a newer format or that is not a bundle index, an unwritable bundle
    ///   directory, a `tuf/` file that cannot be written); `BundleBusy` when another export held
    ///   the bundle for `lockTimeout`.
    public static func export(store: StoreLayout, to bundle: BundleLayout, selection: Selection, includePrivate: Bool = false,
                              signedMetadata: TUFRepositoryCopy? = nil, lockTimeout: Duration = .seconds(2)) throws -> Report {
        var report = Report()
        let candidates = try exportable(store: store, selection: selection, includePrivate: includePrivate, failures: &report.failures)
        let (root, blobs) = try openLocked(bundle, lockTimeout: lockTimeout)
        let existing = try existingIndex(bundle, in: root)
        report.removedTemporaries = removeTemporaries(bundle, blobs: blobs, root: root)

        var damaged = Set<String>()
        for candidate in candidates {
            let artifact = placeSignature(candidate, from: store, into: bundle, blobs: blobs, report: &report)
            place(artifact, from: store, into: bundle, blobs: blobs, report: &report, damaged: &damaged)
        }
        // Entries of the old index stay when their blob is still there with the recorded size;
        // new facts win.
        let fresh = report.copied + report.present
        let freshKeys = Set(fresh.map { "\($0.modelId) \($0.sha256)" })
        let kept = existing.filter { entry in
            guard !freshKeys.contains("\(entry.modelId) \(entry.sha256)"), !damaged.contains(entry.sha256),
                  let info = blobs.info(entry.sha256) else { return false }
            return POSIX.isRegular(info) && Int64(info.st_size) == entry.size
        }.map { keepingSignature($0, blobs: blobs) }
        report.index = BundleIndex(models: kept + fresh)
        if let signedMetadata {
            try writeMetadata(signedMetadata, into: bundle, root: root)
            report.signedMetadata = signedMetadata
        }
        do {
            try root.replace(BundleLayout.indexName, with: try report.index.encoded())
        } catch {
            throw ArtifactFileError(location: bundle.indexFile.path, message: "cannot be written (\(SyncFailure(error).message))",
                                    hint: "check free space and permissions on the bundle's volume")
        }
        return report
    }

    /// Creates the bundle's directories and opens them (`DirectoryHandle`: `blobs` and
    /// `blobs/sha256` are created and opened through the bundle's descriptor, never through a
    /// symbolic link), the bundle's locked for as long as the returned root is open. An existing
    /// index must be readable: never overwrite one of a newer format, or a file that is not a
    /// bundle index at all (the wrong directory); checked before anything is created (and by
    /// the caller again, under the lock).
    private static func openLocked(_ bundle: BundleLayout, lockTimeout: Duration) throws -> (root: DirectoryHandle, blobs: DirectoryHandle) {
        if let existing = try? DirectoryHandle.open(bundle.directory, creating: false) { _ = try existingIndex(bundle, in: existing) }
        if let info = POSIX.lstatInfo(bundle.directory.path), ![S_IFDIR, S_IFLNK].contains(info.st_mode & S_IFMT) {
            throw ArtifactFileError(location: bundle.directory.path, message: "exists and is not a directory",
                                    hint: "choose a directory for the bundle (a new path is created)")
        }
        let root: DirectoryHandle
        do { root = try DirectoryHandle.open(bundle.directory, creating: true) } catch APIError.fileSystem(_, _, let code) where code != ELOOP {
            throw ArtifactFileError(location: bundle.directory.path, message: "cannot be created (\(String(cString: strerror(code))))",
                                    hint: "check the path and that this user may write there")
        } catch {
            throw ArtifactFileError(location: bundle.directory.path, message: "cannot be opened (a symbolic link or not a directory)",
                                    hint: "use a real directory for the bundle")
        }
        // Any failure other than "held" is a file system without locks (some network mounts
        // answer ENOLCK): the export goes ahead unlocked rather than never.
        if FileLock.lock(root.fd, waitingUpTo: lockTimeout) == .held { throw BundleBusy(directory: bundle.directory.path) }
        do {
            return (root, try root.directory("blobs", creating: true).directory("sha256", creating: true))
        } catch APIError.fileSystem(_, let path, let code) where code != ELOOP && code != ENOTDIR {
            throw ArtifactFileError(location: path, message: "cannot be created (\(String(cString: strerror(code))))",
                                    hint: "check the path and that this user may write there")
        } catch {
            throw ArtifactFileError(location: bundle.blobDirectory.path, message: "cannot be opened (a symbolic link or not a directory)",
                                    hint: "use a real directory for the bundle")
        }
    }

    /// Puts one artifact's blob in the bundle: an intact one stays, a damaged one is replaced
    /// (or removed when the store cannot replace it), a missing one is copied.
    private static func place(_ artifact: PinnedArtifact, from store: StoreLayout, into bundle: BundleLayout, blobs: DirectoryHandle,
                              report: inout Report, damaged: inout Set<String>) {
        let blobPath = bundle.blob(artifact.sha256).path
        var repair: Repair?
        if let info = blobs.info(artifact.sha256) {
            switch verifyExisting(artifact, path: blobPath, info: info) {
            case .intact:
                report.present.append(artifact)
                report.bytesVerified += artifact.size
                return
            case .damaged(let problem, let bytesRead):
                report.bytesVerified += bytesRead
                repair = Repair(artifact: artifact, problem: problem, replaced: true)
            case .unreadable(let why):
                report.failures.append(Failure(modelId: artifact.modelId, message: "\(blobPath) cannot be read to verify it (\(why)); left as it is — check the bundle's disk"))
                damaged.insert(artifact.sha256)
                return
            }
        }
        do {
            try copyBlob(artifact, from: store.modelFile(artifact.modelId).path, into: blobs.fd, bundle: bundle)
            report.copied.append(artifact)
            report.bytesCopied += artifact.size
            if let repair { report.repaired.append(repair) }
        } catch {
            let message = (error as? APIError).map { reason($0, artifact) } ?? "\(error)"
            guard var repair else {
                report.failures.append(Failure(modelId: artifact.modelId, message: message))
                return
            }
            // The damaged blob is worth nothing (every reader rejects it): it goes, so the
            // bundle does not claim to hold the artifact.
            repair.replaced = false
            let code = blobs.remove(artifact.sha256)
            let removed = code == 0 || code == ENOENT
            report.repaired.append(repair)
            damaged.insert(artifact.sha256)
            let what = removed ? "was removed" : "could not be removed (\(String(cString: strerror(code)))): delete \(blobPath)"
            report.failures.append(Failure(modelId: artifact.modelId, message: "the bundle's blob \(repair.problem) and \(what); \(message)"))
        }
    }

    /// The artifacts of `selection` the store can export (its state read, private models
    /// left out unless `includePrivate`), and the failures for the rest: what a bundle and an
    /// OCI push (`OCIPusher`) both start from.
    /// - Throws: `ArtifactFileError` when the store has no usable state.
    static func exportable(store: StoreLayout, selection: Selection, includePrivate: Bool, failures: inout [Failure]) throws -> [PinnedArtifact] {
        let state: StoreState
        switch StateFile.read(store) {
        case .loaded(let s): state = s
        case .missing:
            throw ArtifactFileError(location: store.directory.path, message: "the store has no state file, so nothing is known to be verified",
                                    hint: "run \(Remedy.syncOrVerify) on this store first")
        case .unusable(let why):
            throw ArtifactFileError(location: store.stateFile.path, message: why, hint: "run \(Remedy.sync) on this store to rebuild it")
        case .newer(let version):
            throw ArtifactFileError(location: store.stateFile.path, message: StateFile.newerFormatMessage(version), hint: "upgrade \(Remedy.agent)")
        }
        return select(selection, state: state, failures: &failures).map { withSignature($0, state: state, store: store, failures: &failures) }.filter { artifact in
            guard !includePrivate, let visibility = artifact.record?.visibility, visibility != .public else { return true }
            failures.append(Failure(modelId: artifact.modelId, message: "is \(visibility == .private ? "private" : "not public (\(visibility))"): not exported, since anyone who can read the bundle or registry gets its bytes — pass \(Remedy.includePrivate) to export it, and serve or carry it only where it may go"))
            return false
        }
    }

    /// The entries of the bundle's current index (none when there is no index yet), read
    /// through the bundle's descriptor with the index's size limit.
    /// - Throws: `ArtifactFileError` for an index this version must not overwrite.
    static func existingIndex(_ bundle: BundleLayout, in root: DirectoryHandle) throws -> [PinnedArtifact] {
        let data: Data
        do {
            guard let read = try root.read(BundleLayout.indexName, limit: BundleIndex.maxBytes) else { return [] }
            data = read
        } catch {
            throw ArtifactFileError(location: bundle.indexFile.path, message: "exists but cannot be read (\(SyncFailure(error).message))",
                                    hint: "check its permissions; export never overwrites an index it cannot read")
        }
        do { return try BundleIndex.decode(data, location: bundle.indexFile.path).models } catch var error as ArtifactFileError {
            if case .other = error.cause {
                error.hint = "export never overwrites a file it cannot read as a bundle index: if this is the right directory, move index.json away and export again; otherwise choose an empty directory"
            }
            throw error
        }
    }

    /// What an existing blob at its final name holds.
    enum ExistingBlob: Equatable {
        case intact
        case damaged(String, bytesRead: Int64)
        case unreadable(String)
    }

    /// Checks an existing blob's type, size and SHA-256 against `artifact`.
    static func verifyExisting(_ artifact: PinnedArtifact, path: String, info: stat) -> ExistingBlob {
        guard POSIX.isRegular(info) else { return .damaged("is not a regular file", bytesRead: 0) }
        guard Int64(info.st_size) == artifact.size else {
            return .damaged("has \(info.st_size) bytes, not \(artifact.size)", bytesRead: 0)
        }
        do {
            let (sha256, size) = try FileHasher.sha256(of: URL(fileURLWithPath: path))
            if size != artifact.size { return .damaged("has \(size) bytes, not \(artifact.size)", bytesRead: size) }
            if sha256 != artifact.sha256 { return .damaged("has sha256 \(sha256.prefix(12))…, not the one it is named by", bytesRead: size) }
            return .intact
        } catch {
            return .unreadable(SyncFailure(error).message)
        }
    }

    /// Removes the temporary files an interrupted export left (blob copies and index writes)
    /// that no live process holds; returns their paths relative to the bundle.
    static func removeTemporaries(_ bundle: BundleLayout, blobs: DirectoryHandle, root: DirectoryHandle) -> [String] {
        var removed: [String] = []
        sweep(blobs, prefix: BundleLayout.blobPath(""), removed: &removed) { isBlobTemporary($0) }
        sweep(root, prefix: "", removed: &removed) { $0.hasPrefix(BundleLayout.indexName + DurableFile.temporaryInfix) }
        if let tuf = try? root.directory(BundleLayout.tufFolderName, creating: false) {
            sweep(tuf, prefix: BundleLayout.tufFolderName + "/", removed: &removed) { DurableFile.isTemporary($0) }
        }
        return removed.sorted()
    }

    /// Removes the files of `folder` that `isTemporary` names and no live process holds,
    /// adding their paths (after `prefix`) to `removed`.
    static func sweep(_ folder: DirectoryHandle, prefix: String, removed: inout [String], _ isTemporary: (String) -> Bool) {
        for name in folder.names() where isTemporary(name) {
            guard let file = try? folder.openFile(name) else { continue }
            let free = FileLock.tryLock(file)
            if free, folder.remove(name) == 0 { removed.append(prefix + name) }
            close(file)
        }
    }

    /// `.<hex>.<random>.tmp`: the temporary name of a blob being copied.
    static func temporaryName(_ sha256: String) -> String { ".\(sha256).\(POSIX.randomSuffix()).tmp" }

    /// Whether `name` in `blobs/sha256/` is a blob copy's temporary file (or a signature blob's,
    /// written by `DirectoryHandle.replace`: `<hex>.tmp.<random>`).
    static func isBlobTemporary(_ name: String) -> Bool { (name.hasPrefix(".") && name.hasSuffix(".tmp")) || DurableFile.isTemporary(name) }

    /// The artifacts to export, and failures for selected models the store cannot provide.
    static func select(_ selection: Selection, state: StoreState, failures: inout [Failure]) -> [PinnedArtifact] {
        func pinned(_ id: String, _ installed: StoreState.Installed) -> PinnedArtifact {
            PinnedArtifact(modelId: id, version: installed.version, size: installed.size, sha256: installed.sha256, record: installed.record)
        }
        switch selection {
        case .store:
            return state.models.sorted { $0.key < $1.key }.map { pinned($0.key, $0.value) }
        case .models(let ids):
            return ids.compactMap { id in
                guard let installed = state.models[id] else {
                    failures.append(Failure(modelId: id, message: "is not installed in the store; run \(Remedy.sync) first"))
                    return nil
                }
                return pinned(id, installed)
            }
        case .artifacts(let locked):
            return locked.compactMap { want in
                guard let installed = state.models[want.modelId] else {
                    failures.append(Failure(modelId: want.modelId, message: "is not installed in the store; run \(Remedy.syncLocked) first"))
                    return nil
                }
                guard installed.sha256 == want.sha256 else {
                    failures.append(Failure(modelId: want.modelId, message: "the store holds \(installed.version) (sha256 \(installed.sha256.prefix(12))…), not the locked \(want.version) (\(want.sha256.prefix(12))…); run \(Remedy.syncLocked) first"))
                    return nil
                }
                var artifact = want
                if artifact.record == nil { artifact.record = installed.record }
                return artifact
            }
        }
    }

    /// Copies one store file into `blobs/sha256/<hex>`, verified, atomically and durably
    /// (replacing a damaged blob there only once the copy verified).
    static func copyBlob(_ artifact: PinnedArtifact, from source: String, into blobFD: Int32, bundle: BundleLayout) throws {
        let temp = temporaryName(artifact.sha256)
        let tempPath = bundle.blobDirectory.path + "/" + temp
        let copied = try FileCopy.copy(from: source, into: blobFD, name: temp, displayPath: tempPath, maxSize: artifact.size)
        var renamed = false
        defer {
            close(copied.fd)
            if !renamed { _ = unlinkat(blobFD, temp, 0) }
        }
        guard copied.size == artifact.size else { throw APIError.bodyTooShort(expected: artifact.size, received: copied.size) }
        guard copied.sha256 == artifact.sha256 else { throw APIError.integrityMismatch(expected: artifact.sha256, actual: copied.sha256) }
        try DurableFile.commit(copied.fd, path: tempPath, named: temp, in: blobFD, as: artifact.sha256, in: blobFD,
                               directoryPath: bundle.blobDirectory.path)
        renamed = true
    }

    static func reason(_ error: APIError, _ artifact: PinnedArtifact) -> String {
        switch error {
        case .integrityMismatch, .bodyTooShort, .bodyTooLong:
            return "the store's file no longer matches its recorded \(artifact.version) (sha256 \(artifact.sha256.prefix(12))…); not exported — run \(Remedy.verifyRepair)"
        case .fileSystem(_, let path, let code) where code == ENOENT && path.hasSuffix(".bin"):
            return "the store's file is missing; not exported — run \(Remedy.sync)"
        default:
            return "\(error.localizedDescription)"
        }
    }
}

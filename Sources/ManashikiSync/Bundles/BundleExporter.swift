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
/// against the store's record, flushed, renamed to `blobs/sha256/<hex>` and the directory
/// flushed; the index is replaced atomically last. Running it again copies only what is missing.
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
        /// Artifacts copied into the bundle by this run.
        public var copied: [PinnedArtifact] = []
        /// Artifacts the bundle already held (not copied again).
        public var present: [PinnedArtifact] = []
        /// Models that could not be exported, with the reason and what to do.
        public var failures: [Failure] = []
        /// Bytes copied.
        public var bytesCopied: Int64 = 0
        /// The index written.
        public var index = BundleIndex(models: [])
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

    /// Exports `selection` from `store` into `bundle`.
    /// - Throws: `ArtifactFileError` when nothing can be exported at all (no usable state, an
    ///   index of a newer format in the bundle, an unwritable bundle directory).
    public static func export(store: StoreLayout, to bundle: BundleLayout, selection: Selection) throws -> Report {
        let state: StoreState
        switch StateFile.read(store) {
        case .loaded(let s): state = s
        case .missing:
            throw ArtifactFileError(location: store.directory.path, message: "the store has no state file, so nothing is known to be verified",
                                    hint: "run `manashiki-sync sync` (or `verify`) on this store first")
        case .unusable(let why):
            throw ArtifactFileError(location: store.stateFile.path, message: why, hint: "run `manashiki-sync sync` on this store to rebuild it")
        case .newer(let version):
            throw ArtifactFileError(location: store.stateFile.path, message: StateFile.newerFormatMessage(version), hint: "upgrade manashiki-sync")
        }
        var report = Report()
        let candidates = select(selection, state: state, failures: &report.failures)

        // An existing index must be readable: never overwrite one of a newer format.
        var existing: [PinnedArtifact] = []
        if FileManager.default.fileExists(atPath: bundle.indexFile.path) {
            existing = try BundleIndex.read(bundle).models
        }
        do {
            try FileManager.default.createDirectory(at: bundle.blobDirectory, withIntermediateDirectories: true)
        } catch {
            throw ArtifactFileError(location: bundle.blobDirectory.path, message: "cannot be created (\(error.localizedDescription))",
                                    hint: "check the path and that this user may write there")
        }
        let blobFD: Int32
        do { blobFD = try POSIX.openDirectory(bundle.blobDirectory.path) } catch {
            throw ArtifactFileError(location: bundle.blobDirectory.path, message: "cannot be opened (a symbolic link or not a directory)",
                                    hint: "use a real directory for the bundle")
        }
        defer { close(blobFD) }

        for artifact in candidates {
            if let info = POSIX.lstatInfo(bundle.blob(artifact.sha256).path), POSIX.isRegular(info), Int64(info.st_size) == artifact.size {
                report.present.append(artifact)
                continue
            }
            do {
                try copyBlob(artifact, from: store.modelFile(artifact.modelId).path, into: blobFD, bundle: bundle)
                report.copied.append(artifact)
                report.bytesCopied += artifact.size
            } catch let error as APIError {
                report.failures.append(Failure(modelId: artifact.modelId, message: reason(error, artifact)))
            } catch {
                report.failures.append(Failure(modelId: artifact.modelId, message: "\(error)"))
            }
        }
        // Entries of the old index stay when their blob is still there; new facts win.
        let fresh = report.copied + report.present
        let freshKeys = Set(fresh.map { "\($0.modelId) \($0.sha256)" })
        let kept = existing.filter { !freshKeys.contains("\($0.modelId) \($0.sha256)") && FileManager.default.fileExists(atPath: bundle.blob($0.sha256).path) }
        report.index = BundleIndex(models: kept + fresh)
        do { try DurableFile.replace(bundle.indexFile, with: try report.index.encoded()) } catch {
            throw ArtifactFileError(location: bundle.indexFile.path, message: "cannot be written (\(SyncFailure(error).message))",
                                    hint: "check free space and permissions on the bundle's volume")
        }
        return report
    }

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
                    failures.append(Failure(modelId: id, message: "is not installed in the store; run `manashiki-sync sync` first"))
                    return nil
                }
                return pinned(id, installed)
            }
        case .artifacts(let locked):
            return locked.compactMap { want in
                guard let installed = state.models[want.modelId] else {
                    failures.append(Failure(modelId: want.modelId, message: "is not installed in the store; run `manashiki-sync sync --locked` first"))
                    return nil
                }
                guard installed.sha256 == want.sha256 else {
                    failures.append(Failure(modelId: want.modelId, message: "the store holds \(installed.version) (sha256 \(installed.sha256.prefix(12))…), not the locked \(want.version) (\(want.sha256.prefix(12))…); run `manashiki-sync sync --locked` first"))
                    return nil
                }
                var artifact = want
                if artifact.record == nil { artifact.record = installed.record }
                return artifact
            }
        }
    }

    /// Copies one store file into `blobs/sha256/<hex>`, verified, atomically and durably.
    static func copyBlob(_ artifact: PinnedArtifact, from source: String, into blobFD: Int32, bundle: BundleLayout) throws {
        let temp = ".\(artifact.sha256).\(POSIX.randomSuffix()).tmp"
        let copied = try FileCopy.copy(from: source, into: blobFD, name: temp, displayPath: bundle.blobDirectory.path + "/" + temp, maxSize: artifact.size)
        var renamed = false
        defer {
            close(copied.fd)
            if !renamed { _ = unlinkat(blobFD, temp, 0) }
        }
        guard copied.size == artifact.size else { throw APIError.bodyTooShort(expected: artifact.size, received: copied.size) }
        guard copied.sha256 == artifact.sha256 else { throw APIError.integrityMismatch(expected: artifact.sha256, actual: copied.sha256) }
        try POSIX.sync(copied.fd, path: bundle.blob(artifact.sha256).path)
        try POSIX.call("rename", bundle.blob(artifact.sha256).path) { renameat(blobFD, temp, blobFD, artifact.sha256) }
        renamed = true
        try POSIX.sync(blobFD, path: bundle.blobDirectory.path)
    }

    static func reason(_ error: APIError, _ artifact: PinnedArtifact) -> String {
        switch error {
        case .integrityMismatch, .bodyTooShort, .bodyTooLong:
            return "the store's file no longer matches its recorded \(artifact.version) (sha256 \(artifact.sha256.prefix(12))…); not exported — run `manashiki-sync verify --repair`"
        case .fileSystem(_, let path, let code) where code == ENOENT && path.hasSuffix(".bin"):
            return "the store's file is missing; not exported — run `manashiki-sync sync`"
        default:
            return "\(error.localizedDescription)"
        }
    }
}

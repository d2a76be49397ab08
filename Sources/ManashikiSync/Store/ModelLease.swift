import Foundation
import Manashiki
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A model in use: while a live process holds its lease, no sync or `ensure` evicts the model.
///
/// ```swift
/// let lease = try ModelLease.acquire("whisper-small", storeDirectory: manifest.storeDirectory)
/// defer { lease.release() }
/// let model = try Data(contentsOf: lease.fileURL, options: .alwaysMapped)
/// ```
/// A lease is a shared `flock` on `.manashiki/leases/<id>.lease` (like the store's lock, the
/// kernel drops it when the process dies, so a crashed app never pins a model); an eviction takes
/// the exclusive lock, without waiting, for the moment of the delete, and leaves the model alone
/// when it cannot. Taking a lease records a use (`StoreUsage`), and so does releasing it: a model
/// open for hours counts as used until it was closed. The lease file stays (an empty file per
/// model ever leased): deleting a lock file others may be opening would split the lock.
public final class ModelLease: Sendable {
    /// The model id.
    public let modelId: String
    /// The model's file, `<store>/<id>.bin`: it stays there, unchanged or replaced by a newer
    /// verified version (a replacement is a rename: a file already open keeps its bytes), until
    /// the lease is released.
    public let fileURL: URL
    private let layout: StoreLayout
    private let recordsUse: Bool
    private let lock: FileLock

    private init(modelId: String, layout: StoreLayout, lock: FileLock, recordsUse: Bool) {
        self.modelId = modelId
        self.layout = layout
        self.fileURL = layout.modelFile(modelId)
        self.recordsUse = recordsUse
        self.lock = lock
    }

    deinit { release() }

    /// Takes the lease of an installed model.
    ///
    /// - Parameters:
    ///   - storeDirectory: the store (`Manifest.storeDirectory`; the SDK's default store by default).
    ///   - wait: how long to wait while an eviction of this model is deleting it (a moment).
    ///   - recordingUse: whether taking and releasing it record a use (default true). The use is
    ///     written in the background (`waitForRecordedUses()`): neither call waits for the usage
    ///     file's lock or its flushes.
    /// - Throws: `ModelLeaseError.notInstalled` when the model is not in the store (never
    ///   installed, evicted, or purged by the system); `.busy` when it is being evicted;
    ///   `APIError.fileSystem` when the lease file cannot be created (`ELOOP`: a symbolic link
    ///   in `.manashiki`, never followed).
    public static func acquire(_ modelId: String, storeDirectory: URL = ManashikiClient.defaultStorageDirectory,
                               wait: Duration = .seconds(5), recordingUse: Bool = true) throws -> ModelLease {
        guard ModelID.isValid(modelId) else { throw ModelLeaseError.invalidModelId(modelId) }
        let layout = StoreLayout(directory: storeDirectory)
        guard isInstalled(modelId, layout) else { throw ModelLeaseError.notInstalled(modelId: modelId, path: layout.modelFile(modelId).path) }
        let lock = try FileLock(StoreLayout.leaseFileName(modelId), in: try layout.openLeases(creating: true))
        switch lock.lock(.shared, waitingUpTo: wait) {
        case .locked, .unsupported: break // without locks, a lease cannot pin; the model is still opened
        case .held: lock.release(); throw ModelLeaseError.busy(modelId: modelId)
        }
        // Checked again under the lock: an eviction that held it has deleted the file by now.
        guard isInstalled(modelId, layout) else {
            lock.release()
            throw ModelLeaseError.notInstalled(modelId: modelId, path: layout.modelFile(modelId).path)
        }
        let lease = ModelLease(modelId: modelId, layout: layout, lock: lock, recordsUse: recordingUse)
        if recordingUse { UsageRecorder.shared.record(modelId, in: layout) }
        return lease
    }

    /// Releases the lease (recording a use, in the background). Safe to call more than once;
    /// never blocks on the usage file (an app may release on its main thread).
    public func release() {
        guard lock.release() else { return }
        if recordsUse { UsageRecorder.shared.record(modelId, in: layout) }
    }

    /// Waits until every use that leases of this process recorded so far is written to its
    /// store's usage file (or could not be: a use is best effort). Call it before a process that
    /// took leases exits, if the last uses must count.
    public static func waitForRecordedUses() async { await UsageRecorder.shared.waitUntilWritten() }

    /// Whether `<id>.bin` is a regular file.
    static func isInstalled(_ modelId: String, _ layout: StoreLayout) -> Bool {
        POSIX.lstatInfo(layout.modelFile(modelId).path).map(POSIX.isRegular) ?? false
    }

    /// The models some process holds a lease on now (each lease file whose exclusive lock cannot
    /// be taken without waiting).
    static func held(_ layout: StoreLayout) -> Set<String> {
        let names = (try? layout.openLeases(creating: false))?.names() ?? []
        var held = Set<String>()
        for name in names where name.hasSuffix(".lease") {
            let id = String(name.dropLast(".lease".count))
            guard ModelID.isValid(id), let guardLock = EvictionGuard.take(id, layout) else {
                if ModelID.isValid(id) { held.insert(id) }
                continue
            }
            guardLock.release()
        }
        return held
    }
}

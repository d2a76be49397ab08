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
    private let descriptor: Locked<Int32>

    private init(modelId: String, layout: StoreLayout, descriptor: Int32, recordsUse: Bool) {
        self.modelId = modelId
        self.layout = layout
        self.fileURL = layout.modelFile(modelId)
        self.recordsUse = recordsUse
        self.descriptor = Locked(descriptor)
    }

    deinit { release() }

    /// Takes the lease of an installed model.
    ///
    /// - Parameters:
    ///   - storeDirectory: the store (`Manifest.storeDirectory`; the SDK's default store by default).
    ///   - wait: how long to wait while an eviction of this model is deleting it (a moment).
    ///   - recordingUse: whether taking and releasing it record a use (default true).
    /// - Throws: `ModelLeaseError.notInstalled` when the model is not in the store (never
    ///   installed, evicted, or purged by the system); `.busy` when it is being evicted;
    ///   `APIError.fileSystem` when the lease file cannot be created.
    public static func acquire(_ modelId: String, storeDirectory: URL = ManashikiClient.defaultStorageDirectory,
                               wait: Duration = .seconds(5), recordingUse: Bool = true) throws -> ModelLease {
        guard ModelID.isValid(modelId) else { throw ModelLeaseError.invalidModelId(modelId) }
        let layout = StoreLayout(directory: storeDirectory)
        guard isInstalled(modelId, layout) else { throw ModelLeaseError.notInstalled(modelId: modelId, path: layout.modelFile(modelId).path) }
        try FileManager.default.createDirectory(at: layout.leaseDirectory, withIntermediateDirectories: true)
        let path = layout.leaseFile(modelId).path
        let fd = try POSIX.call("open the lease file", path) { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644) }
        switch POSIX.lock(fd, waitingUpTo: wait, exclusive: false) {
        case .locked, .unsupported: break // without locks, a lease cannot pin; the model is still opened
        case .held: close(fd); throw ModelLeaseError.busy(modelId: modelId)
        }
        // Checked again under the lock: an eviction that held it has deleted the file by now.
        guard isInstalled(modelId, layout) else {
            close(fd)
            throw ModelLeaseError.notInstalled(modelId: modelId, path: layout.modelFile(modelId).path)
        }
        let lease = ModelLease(modelId: modelId, layout: layout, descriptor: fd, recordsUse: recordingUse)
        if recordingUse { try? StoreUsage.recordUse(of: [modelId], in: layout) }
        return lease
    }

    /// Releases the lease (recording a use). Safe to call more than once.
    public func release() {
        let released = descriptor.withLock { fd -> Bool in
            guard fd >= 0 else { return false }
            close(fd) // closing the descriptor releases the flock
            fd = -1
            return true
        }
        if released && recordsUse { try? StoreUsage.recordUse(of: [modelId], in: layout) }
    }

    /// Whether `<id>.bin` is a regular file.
    static func isInstalled(_ modelId: String, _ layout: StoreLayout) -> Bool {
        POSIX.lstatInfo(layout.modelFile(modelId).path).map(POSIX.isRegular) ?? false
    }

    /// The models some process holds a lease on now (each lease file whose exclusive lock cannot
    /// be taken without waiting).
    static func held(_ layout: StoreLayout) -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: layout.leaseDirectory.path)) ?? []
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

/// The exclusive side of a lease: held by an eviction for the moment it deletes the model.
final class EvictionGuard {
    private let descriptor: Locked<Int32>

    private init(fd: Int32) { descriptor = Locked(fd) }

    deinit { release() }

    /// Takes the exclusive lock of `modelId`'s lease without waiting; nil when a lease is held.
    /// A model never leased has no lease file: the guard then holds a new one, so a lease taken
    /// meanwhile waits for the delete and then finds the model gone.
    static func take(_ modelId: String, _ layout: StoreLayout) -> EvictionGuard? {
        try? FileManager.default.createDirectory(at: layout.leaseDirectory, withIntermediateDirectories: true)
        let path = layout.leaseFile(modelId).path
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        guard POSIX.tryLock(fd) else { close(fd); return nil }
        return EvictionGuard(fd: fd)
    }

    /// Releases the lock. Safe to call more than once.
    func release() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            close(fd)
            fd = -1
        }
    }
}

/// Why a lease could not be taken.
public enum ModelLeaseError: Error, Sendable, Hashable, LocalizedError {
    /// The model is not in the store: never installed, evicted, or purged by the system. For an
    /// optional or on-demand model this is not a failure: install it (`Reconciler.ensure(_:)`).
    case notInstalled(modelId: String, path: String)
    /// An eviction of the model is deleting it right now.
    case busy(modelId: String)
    /// Not a valid model id.
    case invalidModelId(String)

    /// What happened and what to do.
    public var errorDescription: String? {
        switch self {
        case .notInstalled(let id, let path):
            return "\(id) is not installed (\(path) does not exist); install it first, e.g. with Reconciler.ensure([\"\(id)\"])"
        case .busy(let id): return "\(id) is being evicted from the store; install it again with Reconciler.ensure([\"\(id)\"])"
        case .invalidModelId(let id): return "\"\(id)\" is not a valid model id"
        }
    }
}

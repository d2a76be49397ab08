import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The partial file a download writes into: a kept one continued, or a new one, locked while
/// open; kept (with its sidecar) for a later download when the transfer is interrupted,
/// removed when it fails for good, renamed over `<modelId>.bin` when verified.
final class PartialFile: @unchecked Sendable {
    let store: StorageDirectory
    let name: String
    let fd: Int32
    let modelId: String
    /// Bytes kept from an earlier download (the prefix is hashed again before use).
    let kept: StorageDirectory.KeptBytes
    private let keepable: (sha256: String, size: Int64)?
    private let version: String?
    private var open = true
    private var installed = false
    private var keeping = false
    /// The bytes to record when kept out of order (a parallel transfer's); nil: in order.
    private var parts: ByteRangeSet?

    private init(store: StorageDirectory, name: String, fd: Int32, modelId: String, kept: StorageDirectory.KeptBytes,
                 keepable: (sha256: String, size: Int64)?, version: String?) {
        self.store = store
        self.name = name
        self.fd = fd
        self.modelId = modelId
        self.kept = kept
        if !kept.parts.isEmpty { parts = ByteRangeSet([0..<kept.prefix] + kept.parts) }
        self.keepable = keepable
        self.version = version
    }

    /// The best kept partial of `modelId` for the artifact `keepable` (digest and size), else a new one.
    static func open(_ modelId: String, in store: StorageDirectory, keepable: (sha256: String, size: Int64)?,
                     version: String?) throws -> PartialFile {
        let file: PartialFile
        if let adopted = store.adoptPartial(for: modelId, sha256: keepable?.sha256, size: keepable?.size) {
            file = PartialFile(store: store, name: adopted.name, fd: adopted.fd, modelId: modelId, kept: adopted.kept,
                               keepable: keepable, version: version)
        } else {
            let (name, fd) = try store.createPartial(for: modelId)
            file = PartialFile(store: store, name: name, fd: fd, modelId: modelId, kept: .init(), keepable: keepable, version: version)
        }
        // A crash (kill -9, power loss) gives no chance to write the sidecar at the end, so an
        // artifact worth resuming (4 MiB or more) gets it before the first byte: a crash at any
        // instant then leaves a usable pair. A smaller one is simply fetched again.
        if file.kept.count == 0, let keepable, keepable.size >= 4 << 20 {
            try? store.keepPartial(file.name, file: file.fd, modelId: modelId, sha256: keepable.sha256, size: keepable.size, version: version)
        }
        return file
    }

    /// Its path.
    var path: String { store.partialPath(name) }

    /// Keeps the file for a later download when it closes, if bytes were written
    /// (`outOfOrder`: recorded as parts, a parallel transfer's).
    func keep(_ written: ByteRangeSet, outOfOrder: Bool) {
        if !written.isEmpty { keeping = true }
        if outOfOrder || parts != nil { parts = written }
    }

    /// Records what is on disk in the sidecar while the transfer runs (`TransferLedger`'s
    /// checkpoints, on the I/O queue): `written` by parts, or (nil) the partial as written in
    /// order. The file is flushed first, so the sidecar never names bytes a power loss could
    /// take back.
    func checkpoint(_ written: ByteRangeSet?) {
        guard let keepable else { return }
        parts = written
        try? store.keepPartial(name, file: fd, modelId: modelId, sha256: keepable.sha256, size: keepable.size, version: version,
                               prefix: written?.prefix ?? 0, parts: written.map(Self.after))
    }

    private static func after(_ written: ByteRangeSet) -> [Range<Int64>] { written.ranges.filter { $0.lowerBound > 0 } }

    /// Renames the verified file over `<modelId>.bin` while the descriptor (and so its flock)
    /// is still held: a concurrent download's cleaner removes partial files whose lock it can
    /// take, and would otherwise race this.
    func install() throws {
        try store.install(partial: name, file: fd, as: modelId)
        installed = true
        release()
    }

    /// Closes the file: kept with its sidecar (`keep`), else removed, unless installed.
    func release() {
        guard open else { return }
        if !installed {
            if keeping, let keepable, (try? store.keepPartial(name, file: fd, modelId: modelId, sha256: keepable.sha256,
                                                              size: keepable.size, version: version, prefix: parts?.prefix ?? 0,
                                                              parts: parts.map(Self.after))) != nil {
                // Kept for the next download of this artifact (this process or another).
            } else {
                store.removePartial(name)
            }
        }
        close(fd)
        open = false
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Partial downloads kept for a later run: `<id>.<rnd>.partial` plus its sidecar
/// `<id>.<rnd>.partial.json` (`PartialSidecar`). A partial is only ever touched by the process
/// holding its `flock`: one whose lock is held is neither resumed nor removed.
extension StorageDirectory {
    /// A partial download on disk, as `status` and `verify` show it.
    package struct KeptPartial: Sendable, Equatable {
        /// Its file name in the partial folder.
        package var name: String
        /// The model it belongs to.
        package var modelId: String
        /// Bytes in the file.
        package var bytes: Int64
        /// The artifact's size, from the sidecar.
        package var size: Int64?
        /// The artifact's expected SHA-256, from the sidecar (nil: no usable sidecar, so it
        /// cannot be resumed).
        package var sha256: String?
        /// When a byte was last written.
        package var modified: Date
        /// Whether a download holds it right now.
        package var inUse: Bool
    }

    /// The usable sidecar of partial `name`, or nil.
    func sidecar(of name: String) -> PartialSidecar? { Self.sidecar(of: name, in: partials) }

    private static func sidecar(of name: String, in folder: DirectoryHandle) -> PartialSidecar? {
        guard let data = try? folder.read(StoreLayout.sidecarName(of: name), limit: PartialSidecar.maxBytes),
              case .success(let sidecar) = PartialSidecar.decode(data), sidecar.modelId == StoreLayout.modelId(ofPartial: name) else { return nil }
        return sidecar
    }

    /// Keeps partial `name` (open as `file`) for a later download of the artifact: flushes the
    /// data, then writes its sidecar durably. Written in order (`parts` nil), the bytes now on
    /// disk are its `bytesKnownGood`; a parallel transfer's partial records `prefix` and `parts`.
    /// - Parameter flushData: false for a checkpoint during a transfer (a crash of the process
    ///   keeps what the kernel holds; after a power loss the digest catches a lost page and the
    ///   next download starts over once).
    package func keepPartial(_ name: String, file: Int32, modelId: String, sha256: String, size: Int64, version: String?,
                             prefix: Int64 = 0, parts: [Range<Int64>]? = nil, flushData: Bool = true) throws {
        if flushData { try POSIX.sync(file, path: partialPath(name)) }
        let good = parts == nil ? min(Self.info(file)?.bytes ?? 0, size) : min(prefix, size)
        let sidecar = PartialSidecar(modelId: modelId, sha256: sha256, size: size, version: version, bytesKnownGood: good,
                                     parts: parts?.filter { $0.lowerBound >= good && $0.upperBound <= size })
        try DurableFile.write(sidecar.encoded(), as: StoreLayout.sidecarName(of: name), in: partialFD,
                              directoryPath: partialPath(""))
    }

    /// How long a resume (or the count of reusable partials) waits for a partial's lock before
    /// taking it as held by a live download. Not zero: a child process spawned by any thread
    /// holds a copy of every descriptor, and with it the lock, until it `exec`s; a loaded
    /// machine can take that long. A partial really in use costs this once per look.
    package static let lockGrace: Duration = .milliseconds(250)

    /// Opens and locks partial `name`; nil if it is gone, a symlink, or held by a live download
    /// for longer than `grace`. Only a resume asks for grace (`lockGrace`): a download of this process
    /// that kept the partial an instant ago can then take it over although a child spawned
    /// meanwhile still holds a copy of its descriptor. Cleaners do not wait: they pass over
    /// every live download's partial, and would wait for each.
    private func lockPartial(_ name: String, grace: Duration = .zero) -> Int32? {
        guard let fd = try? partials.openFile(name, flags: O_RDWR) else { return nil }
        guard FileLock.lock(fd, waitingUpTo: grace) == .locked, isStillNamed(name, fd) else { close(fd); return nil }
        return fd
    }

    private func partialNames() -> [String] { partials.names() }

    /// Size and modification time of an open partial (`FileIdentity` reads the `stat`).
    private static func info(_ fd: Int32) -> (bytes: Int64, modified: Date)? {
        guard let identity = FileIdentity.of(fd: fd) else { return nil }
        return (identity.size, Date(timeIntervalSince1970: Double(identity.mtimeNanoseconds) / 1e9))
    }

    /// Removes what no live download holds and nothing can resume: partials without a usable
    /// sidecar (no sidecar, truncated, another format version, inconsistent), partials unused
    /// for longer than `retention` (nil: keep any age), partials of models outside `models`
    /// (nil: any model), sidecars without their partial, and temporary sidecars of crashed
    /// writes. Returns the data files' names removed.
    package func removeAbandonedPartials(olderThan retention: TimeInterval?, keepingOnly models: Set<String>? = nil,
                                         now: Date = Date()) -> [String] {
        var removed: [String] = []
        let names = partialNames()
        let present = Set(names)
        for name in names where StoreLayout.isPartialName(name) {
            guard let fd = lockPartial(name) else { continue }
            defer { close(fd) }
            var discard = sidecar(of: name) == nil
            if let retention, let info = Self.info(fd), now.timeIntervalSince(info.modified) > retention { discard = true }
            if let models, let id = StoreLayout.modelId(ofPartial: name), !models.contains(id) { discard = true }
            if discard {
                removePartial(name)
                removed.append(name)
            } else {
                removeTemporarySidecars(of: name, among: names)
            }
        }
        // Sidecars (and their temporary files) whose partial is gone.
        for name in names where !StoreLayout.isPartialName(name) {
            guard let owner = StoreLayout.partialName(ofSidecar: name) else { continue }
            if !present.contains(owner) || removed.contains(owner) { _ = unlinkat(partialFD, name, 0) }
        }
        return removed.sorted()
    }

    private func removeTemporarySidecars(of name: String, among names: [String]) {
        let prefix = StoreLayout.sidecarName(of: name) + DurableFile.temporaryInfix
        for other in names where other.hasPrefix(prefix) { _ = unlinkat(partialFD, other, 0) }
    }

    /// What a kept partial holds: its first `prefix` bytes, then `parts` (a parallel transfer's).
    package struct KeptBytes: Sendable, Equatable {
        /// Bytes from 0.
        package var prefix: Int64
        /// Ranges after the prefix.
        package var parts: [Range<Int64>]
        package init(prefix: Int64 = 0, parts: [Range<Int64>] = []) {
            self.prefix = prefix
            self.parts = parts
        }

        /// All of them.
        package var count: Int64 { prefix + parts.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }
    }

    /// Takes over the best kept partial of `modelId` for the artifact `sha256`/`size`: locks it
    /// and returns it with the bytes it holds (at most `size`; a parallel transfer's parts only
    /// where the file reaches them). Partials of that model that belong to another artifact
    /// (the catalog moved on), or to no known artifact (`sha256` or `size` nil), are removed;
    /// ones held by a live download are left alone.
    package func adoptPartial(for modelId: String, sha256: String?, size: Int64?) -> (name: String, fd: Int32, kept: KeptBytes)? {
        var best: (name: String, fd: Int32, kept: KeptBytes)?
        for name in partialNames() where StoreLayout.modelId(ofPartial: name) == modelId {
            guard let fd = lockPartial(name, grace: Self.lockGrace) else { continue }
            guard let sha256, let size, let sidecar = sidecar(of: name), sidecar.belongs(to: sha256, size: size),
                  let bytes = Self.info(fd)?.bytes else {
                close(fd)
                removePartial(name)
                continue
            }
            let kept = sidecar.parts == nil ? KeptBytes(prefix: min(bytes, size), parts: [])
                : KeptBytes(prefix: min(sidecar.bytesKnownGood, bytes), parts: sidecar.partRanges.filter { $0.upperBound <= bytes })
            if let current = best, current.kept.count >= kept.count {
                close(fd)
                removePartial(name)
                continue
            }
            if let current = best {
                close(current.fd)
                removePartial(current.name)
            }
            best = (name, fd, kept)
        }
        return best
    }

    /// The partial downloads on disk (read only; held ones are reported as in use).
    package func keptPartials() -> [KeptPartial] { Self.keptPartials(inFolder: partials) }

    /// The partial downloads in `layout`'s store without opening it as a `StorageDirectory`:
    /// creates nothing and removes nothing (for `status` and `verify`, which only look).
    package static func keptPartials(in layout: StoreLayout) -> [KeptPartial] {
        guard let folder = try? layout.openMetadataFolder(StoreLayout.partialFolderName, creating: false) else { return [] }
        return keptPartials(inFolder: folder)
    }

    private static func keptPartials(inFolder folder: DirectoryHandle) -> [KeptPartial] {
        var result: [KeptPartial] = []
        for name in folder.names() where StoreLayout.isPartialName(name) {
            guard let id = StoreLayout.modelId(ofPartial: name), let fd = try? folder.openFile(name) else { continue }
            defer { close(fd) }
            guard let info = info(fd) else { continue }
            // The same grace as a resume: a partial this process kept an instant ago is not "in
            // use" because a child spawned meanwhile holds a copy of its descriptor.
            let free = FileLock.lock(fd, waitingUpTo: StorageDirectory.lockGrace) != .held
            if free { FileLock.unlock(fd) }
            let sidecar = sidecar(of: name, in: folder)
            result.append(KeptPartial(name: name, modelId: id, bytes: info.bytes, size: sidecar?.size,
                                      sha256: sidecar?.sha256, modified: info.modified, inUse: !free))
        }
        return result.sorted { ($0.modelId, $0.name) < ($1.modelId, $1.name) }
    }
}

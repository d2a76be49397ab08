import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The two halves of installing a file that a background session downloaded:
///
/// 1. `adopt`, inside `urlSession(_:downloadTask:didFinishDownloadingTo:)` (the system deletes
///    its file when that call returns): a `rename` into the store's partial folder under a fresh
///    partial name, with the partial's sidecar written first, so the bytes are kept, under no
///    final name, whatever happens next. Constant time on the same volume (the system's file is
///    in the app's or App Group's container, the default store too); another volume (a store the
///    user put elsewhere on a Mac) falls back to a clone or a copy.
/// 2. `install`, afterwards, in the time the system grants (`BackgroundTime`): the SHA-256 of the
///    whole file, checked against the ticket's digest and size, then `StorageDirectory.install`
///    (flush, rename over `<modelId>.bin`, flush the directory) — the install step every
///    download ends with. The hash stops between 4 MiB blocks when the time runs out; the file
///    stays a partial and is hashed again at the next launch or wake.
///
/// A partial adopted here is also an ordinary kept partial of its artifact: a foreground
/// `downloadModel` of the same model takes it over (hashes it and finds it complete).
enum BackgroundInstall {
    /// Moves the system's file at `location` into `store`'s partial folder for `ticket` and
    /// returns its partial name.
    /// - Throws: `APIError.bodyTooShort` / `.bodyTooLong` when its size is not the ticket's (no
    ///   byte is moved then); `.fileSystem`.
    static func adopt(_ location: URL, for ticket: BackgroundDownloadTicket, into store: StorageDirectory) throws -> String {
        try ModelID.validate(ticket.modelId)
        let source = location.path
        guard let info = POSIX.lstatInfo(source), POSIX.isRegular(info) else {
            throw APIError.fileSystem(operation: "read (not a regular file)", path: source, code: EINVAL)
        }
        let received = Int64(info.st_size)
        let size = ticket.size ?? received
        if received < size { throw APIError.bodyTooShort(expected: size, received: received) }
        if received > size { throw APIError.bodyTooLong(expected: size) }
        for _ in 0..<8 {
            let name = StoreLayout.newPartialName(for: ticket.modelId)
            var existing = stat()
            if fstatat(store.partialFD, name, &existing, AT_SYMLINK_NOFOLLOW) == 0 { continue }
            // The sidecar first: a crash before the rename leaves a sidecar without its partial,
            // which every cleaner removes; after it, a usable pair.
            let sidecar = PartialSidecar(modelId: ticket.modelId, sha256: ticket.sha256, size: size, version: ticket.version, bytesKnownGood: 0)
            try DurableFile.write(sidecar.encoded(), as: StoreLayout.sidecarName(of: name), in: store.partialFD,
                                  directoryPath: store.partialPath(""))
            if renameat(AT_FDCWD, source, store.partialFD, name) == 0 {
                try? POSIX.sync(store.partialFD, path: store.partialPath(""))
                return name
            }
            let code = errno
            guard code == EXDEV else {
                store.removePartial(name)
                throw APIError.fileSystem(operation: "move the downloaded file into", path: store.partialPath(name), code: code)
            }
            do {
                let copied = try FileCopy.copy(from: source, into: store.partialFD, name: name, displayPath: store.partialPath(name), maxSize: size)
                close(copied.fd)
                return name
            } catch {
                store.removePartial(name)
                throw error
            }
        }
        throw APIError.fileSystem(operation: "create a temporary file in", path: store.partialPath(""), code: EEXIST)
    }

    /// What became of an adopted file.
    enum Outcome: Sendable, Equatable {
        /// Verified and installed as `<modelId>.bin`.
        case installed(DownloadedModel)
        /// `stop` said the time ran out; the file is kept for the next attempt.
        case deferred
        /// Another download holds it right now (a foreground download of the same model took
        /// it over); it is left alone.
        case held
        /// It is no longer there (taken over and installed by a foreground download, or removed
        /// by a cleaner).
        case gone
        /// It did not verify, or the store failed; the file is removed, the installed one untouched.
        case failed(APIError)
    }

    /// Verifies the adopted partial `name` against `ticket` and installs it. `stop` is asked
    /// before each 4 MiB block of the hash.
    static func install(_ name: String, for ticket: BackgroundDownloadTicket, in store: StorageDirectory,
                        stop: () -> Bool) -> Outcome {
        let path = store.partialPath(name)
        let fd: Int32
        do { fd = try store.partials.openFile(name, flags: O_RDWR) } catch let error as APIError {
            if case .fileSystem(_, _, let code) = error, code == ENOENT { return .gone }
            return .failed(error)
        } catch {
            return .failed(.fileSystem(operation: "open", path: path, code: POSIX.errnoCode(of: error)))
        }
        var keep = false, installed = false
        defer {
            if !installed && !keep { store.removePartial(name) }
            close(fd)
        }
        // Locked like every partial in use, so cleaners and foreground downloads leave it alone.
        guard FileLock.tryLock(fd), store.isStillNamed(name, fd) else {
            keep = true
            return .held
        }
        let size = ticket.size ?? FileIdentity.of(fd: fd)?.size ?? 0
        do {
            let (sha256, count) = try FileCopy.hash(fd, path: path, maxSize: size, stop: stop)
            guard count == size else { return .failed(.bodyTooShort(expected: size, received: count)) }
            guard sha256 == ticket.sha256 else { return .failed(.integrityMismatch(expected: ticket.sha256, actual: sha256)) }
            let identity = FileIdentity.of(fd: fd) // survives the flush and the rename
            try store.install(partial: name, file: fd, as: ticket.modelId)
            installed = true
            var model = DownloadedModel(modelId: ticket.modelId, localURL: store.modelURL(ticket.modelId), sha256: sha256,
                                        size: count, version: ticket.version, verified: true)
            model.fileIdentity = identity
            return .installed(model)
        } catch is CancellationError {
            keep = true
            return .deferred
        } catch let error as APIError {
            return .failed(error)
        } catch {
            return .failed(.fileSystem(operation: "install", path: path, code: POSIX.errnoCode(of: error)))
        }
    }
}

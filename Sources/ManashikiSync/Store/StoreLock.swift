import Foundation
import Manashiki
import ManashikiCore

/// The cross-process lock of a store: an exclusive `FileLock` on `<store>/.manashiki/lock`,
/// opened through the store's descriptor (`DirectoryHandle`), so a `.manashiki` or a `lock`
/// that is a symbolic link is refused, never followed: nothing is created outside the store.
///
/// A second run waits up to a timeout, then gives up with a "locked" outcome. The kernel
/// releases a flock when its process dies, so a lock left by a crashed run never blocks.
///
/// ```swift
/// guard let lock = try await StoreLock.acquire(layout, timeout: .seconds(30)) else { return }
/// defer { lock.release() }
/// ```
public final class StoreLock: Sendable {
    private let lock: FileLock

    private init(lock: FileLock) { self.lock = lock }

    /// Takes the lock, polling until `timeout` passes; nil if another holder kept it that long.
    /// A file system without locks (some network mounts answer `ENOLCK`) is an error: two runs
    /// must never write one store at once.
    ///
    /// - Parameters:
    ///   - pollInterval: how long to wait between attempts.
    ///   - sleep: how to wait (injectable so tests do not wait).
    /// - Throws: `SyncFailure` when the store is a file; `APIError.fileSystem` when the lock
    ///   file cannot be opened (`ELOOP`: `.manashiki` or the lock is a symbolic link) or locked.
    public static func acquire(
        _ layout: StoreLayout,
        timeout: Duration,
        pollInterval: Duration = .milliseconds(100),
        sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) async throws -> StoreLock? {
        let lock = try FileLock(StoreLayout.lockFileName, in: try layout.openPreparedMetadata())
        switch try await lock.lock(.exclusive, waitingUpTo: timeout, pollInterval: pollInterval, sleep: sleep) {
        case .locked: return StoreLock(lock: lock)
        case .held: return nil
        case .unsupported(let code): throw APIError.fileSystem(operation: "lock", path: lock.path, code: code)
        }
    }

    /// What a run that gave up waiting for the lock says, in every command:
    /// `another run holds the lock on DIR (waited 30 s); try again when it has finished`.
    public static func heldMessage(_ layout: StoreLayout, waited: Duration) -> String {
        "another run holds the lock on \(layout.directory.path) (waited \(String(format: "%g", waited / .seconds(1))) s); try again when it has finished"
    }

    /// Releases the lock. Safe to call more than once.
    public func release() { lock.release() }
}

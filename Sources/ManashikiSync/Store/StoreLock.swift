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

/// The cross-process lock of a store: an exclusive `flock` on `<store>/.manashiki/lock`.
///
/// A second run waits up to a timeout, then gives up with a "locked" outcome. The kernel
/// releases a flock when its process dies, so a lock left by a crashed run never blocks.
///
/// ```swift
/// guard let lock = try await StoreLock.acquire(layout, timeout: .seconds(30)) else { return }
/// defer { lock.release() }
/// ```
public final class StoreLock: Sendable {
    private let descriptor: Locked<Int32>

    private init(descriptor: Int32) { self.descriptor = Locked(descriptor) }

    deinit { release() }

    /// Takes the lock, polling until `timeout` passes; nil if another holder kept it that long.
    ///
    /// - Parameters:
    ///   - pollInterval: how long to wait between attempts.
    ///   - sleep: how to wait (injectable so tests do not wait).
    /// - Throws: `APIError.fileSystem` if the lock file cannot be opened.
    public static func acquire(
        _ layout: StoreLayout,
        timeout: Duration,
        pollInterval: Duration = .milliseconds(100),
        sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) async throws -> StoreLock? {
        try layout.prepare()
        let fd = open(layout.lockFile.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw APIError.fileSystem(operation: "open the lock file", path: layout.lockFile.path, code: errno) }
        var waited = Duration.zero
        while true {
            if POSIX.tryLock(fd) { return StoreLock(descriptor: fd) }
            guard waited < timeout else { close(fd); return nil }
            let step = min(pollInterval, timeout - waited)
            do { try await sleep(step) } catch { close(fd); throw error }
            waited += step
        }
    }

    /// What a run that gave up waiting for the lock says, in every command:
    /// `another run holds the lock on DIR (waited 30 s); try again when it has finished`.
    public static func heldMessage(_ layout: StoreLayout, waited: Duration) -> String {
        "another run holds the lock on \(layout.directory.path) (waited \(String(format: "%g", waited / .seconds(1))) s); try again when it has finished"
    }

    /// Releases the lock. Safe to call more than once.
    public func release() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            close(fd) // closing the descriptor releases the flock
            fd = -1
        }
    }
}

import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The package's one file lock: a `flock` on a file opened through `DirectoryHandle` (never
/// through a symbolic link, never a FIFO), or on a descriptor whose file is also data (a
/// partial download, a bundle directory). Every wait for it goes through `LockPoll`, the one
/// polling loop. Used by the store's lock (`StoreLock`), a model's lease and its eviction
/// guard (`ModelLease`), the usage file's lock (`StoreUsage`), an export's bundle lock and the
/// partial downloads' locks.
///
/// ```swift
/// let lock = try FileLock("lock", in: metadata)       // opened (created when missing), not locked
/// switch try await lock.lock(.exclusive, waitingUpTo: .seconds(30)) {
/// case .locked: defer { lock.release() } …
/// case .held: …                                          // another holder kept it that long
/// case .unsupported(let errno): …                        // a file system without locks
/// }
/// ```
///
/// The kernel releases a `flock` when its holder dies, so a crashed process never blocks the
/// next. Closing the descriptor releases it; a child process spawned meanwhile by any thread
/// holds a copy of every descriptor, and with it the lock, until it `exec`s (`O_CLOEXEC` closes
/// them only then): never ask for no wait on a lock this program may just have released
/// (docs/development.md, "Sharp edges"; `SpawnedChildLockTests`).
///
/// (Not named `LockFile`: that is the public `manashiki.lock.json` of a manifest.)
package final class FileLock: Sendable {
    /// Exclusive (a writer, an eviction) or shared (a lease).
    package enum Mode: Sendable, Hashable {
        /// One holder at a time.
        case exclusive
        /// Any number of shared holders, none while an exclusive one holds it.
        case shared

        var operation: Int32 { self == .exclusive ? LOCK_EX : LOCK_SH }
    }

    /// What a wait for the lock found.
    package enum Outcome: Sendable, Hashable {
        /// The lock is ours.
        case locked
        /// Another open file description held it for the whole wait.
        case held
        /// The file system does not lock (some network mounts answer `ENOLCK`): the `errno`.
        case unsupported(Int32)
    }

    /// The lock file's path, for messages.
    package let path: String
    private let descriptor: Locked<Int32>

    /// Opens (creating it, mode 0644, when missing) the lock file `name` in `directory`; not
    /// locked yet.
    /// - Throws: `APIError.fileSystem` naming the path (a symbolic link, a FIFO, no permission…).
    package init(_ name: String, in directory: DirectoryHandle) throws {
        path = directory.displayPath(name)
        descriptor = Locked(try directory.openFile(name, flags: O_RDWR, creating: 0o644))
    }

    deinit { release() }

    /// Takes the lock, polling until `wait` has passed (blocking this thread: for the short
    /// waits of leases, usage records and partials).
    package func lock(_ mode: Mode, waitingUpTo wait: Duration) -> Outcome {
        let fd = descriptor.current
        return fd < 0 ? .unsupported(EBADF) : Self.lock(fd, mode, waitingUpTo: wait)
    }

    /// Takes the lock, polling every `pollInterval` until `wait` has passed, sleeping with
    /// `sleep` between tries (cancellable; injectable so tests do not wait).
    /// - Throws: what `sleep` throws (`CancellationError`).
    package func lock(_ mode: Mode, waitingUpTo wait: Duration, pollInterval: Duration,
                      sleep: @Sendable (Duration) async throws -> Void) async throws -> Outcome {
        let fd = descriptor.current
        guard fd >= 0 else { return .unsupported(EBADF) }
        var poll = LockPoll(fd, mode, wait: wait, interval: pollInterval)
        while true {
            switch poll.next() {
            case .done(let outcome): return outcome
            case .sleep(let step): try await sleep(step)
            }
        }
    }

    /// Takes the lock if no one holds it, without waiting.
    package func tryLock(_ mode: Mode) -> Bool {
        descriptor.withLock { fd in fd >= 0 && Self.tryLock(fd, mode) }
    }

    /// Releases the lock and closes the file. Safe to call more than once: true the first time.
    @discardableResult
    package func release() -> Bool {
        descriptor.withLock { fd in
            guard fd >= 0 else { return false }
            close(fd) // closing the descriptor releases the flock
            fd = -1
            return true
        }
    }

    // MARK: Descriptors owned elsewhere

    /// Takes the lock of `fd` (a partial download, a bundle directory), polling until `wait`
    /// has passed; blocks this thread.
    package static func lock(_ fd: Int32, _ mode: Mode = .exclusive, waitingUpTo wait: Duration) -> Outcome {
        var poll = LockPoll(fd, mode, wait: wait, interval: LockPoll.defaultInterval)
        while true {
            switch poll.next() {
            case .done(let outcome): return outcome
            case .sleep(let step): LockPoll.block(step)
            }
        }
    }

    /// Takes the lock of `fd` if no one holds it, without waiting.
    package static func tryLock(_ fd: Int32, _ mode: Mode = .exclusive) -> Bool {
        var poll = LockPoll(fd, mode, wait: .zero, interval: .zero)
        return poll.next() == .done(.locked)
    }

    /// Releases the lock of `fd` without closing it.
    package static func unlock(_ fd: Int32) { _ = flock(fd, LOCK_UN) }
}

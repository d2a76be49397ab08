import Foundation

/// The exit statuses of `manashiki-sync`, a stable, documented contract for scripts and timers.
///
/// | code | meaning |
/// |---|---|
/// | 0 | success: in sync, changes applied, store healthy |
/// | 1 | failure: nothing could be applied (registry unreachable, key rejected, plan refused…) |
/// | 2 | usage, manifest or configuration error (bad flag, invalid manifest, missing or malformed key) |
/// | 3 | partial failure: some models failed or are blocked, the others were applied |
/// | 4 | `verify` found corrupt, missing or unreadable files (and `--repair` was not given or did not fix them) |
/// | 10 | `plan`: changes pending |
/// | 75 | another run holds the store's lock (EX_TEMPFAIL: try again later) |
/// | 130 | interrupted by SIGINT (Ctrl-C) |
/// | 143 | terminated by SIGTERM |
///
/// A model refused by trust (`trust.tuf`, `trust.modelSigning`) fails like any model: 3 when
/// others were applied, 1 when none was. The refusal is terminal (retrying will not help, unlike
/// a network error); `--json`'s `trustRefusal` says which mechanism, role and reason.
public enum ExitCode: Int32, Sendable, CaseIterable, CustomStringConvertible {
    /// In sync, changes applied, or the store is healthy.
    case success = 0
    /// Nothing could be applied.
    case failure = 1
    /// A usage, manifest or configuration error.
    case usage = 2
    /// Some models failed or are blocked; the others were applied.
    case partialFailure = 3
    /// `verify` found damage it did not repair.
    case damaged = 4
    /// `plan`: applying the manifest would change the store.
    case changesPending = 10
    /// Another run holds the store's lock (JSON name `locked`).
    case busy = 75
    /// Interrupted by SIGINT.
    case interrupted = 130
    /// Terminated by SIGTERM.
    case terminated = 143

    /// A short name used in JSON output (`"partial-failure"`).
    package var name: String {
        switch self {
        case .success: return "success"
        case .failure: return "failure"
        case .usage: return "usage-error"
        case .partialFailure: return "partial-failure"
        case .damaged: return "damaged"
        case .changesPending: return "changes-pending"
        case .busy: return "locked"
        case .interrupted: return "interrupted"
        case .terminated: return "terminated"
        }
    }

    /// `3 (partial-failure)`.
    public var description: String { "\(rawValue) (\(name))" }
}

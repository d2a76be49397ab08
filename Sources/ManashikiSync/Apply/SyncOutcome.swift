import Foundation

/// The overall result of a run, for exit codes and UI.
public enum SyncOutcome: String, Sendable, Hashable {
    /// Nothing needed doing.
    case inSync
    /// Changes were applied and nothing failed or is blocked.
    case changed
    /// Some models failed or are blocked; the others were applied. Nothing was pruned.
    case partialFailure
    /// Nothing could be applied (the catalog or the key failed, or every action failed).
    case failed
    /// Another run holds the store's lock (raw value and `--json` word: `locked`).
    case storeBusy = "locked"
    /// The plan was refused before any byte moved (not enough disk space).
    case refused
    /// The run was cancelled.
    case cancelled
    /// A dry run: the plan was made and nothing applied.
    case planned

}

import Foundation

/// What a run reports as it goes; `Reconciler.events()` streams them, ending with `.finished`.
///
/// ```swift
/// for await event in reconciler.events() {
///     switch event {
///     case .progress(let id, let written, let total): print(id, written, total ?? -1)
///     case .finished(let report): print(report.summary)
///     default: break
///     }
/// }
/// ```
public enum SyncEvent: Sendable, Equatable {
    /// Leftovers of a crashed run were removed.
    case cleanedLeftovers([String])
    /// The plan is ready; applying starts (unless refused or a dry run).
    case planReady(Plan)
    /// An action started.
    case modelStarted(modelId: String, action: PlanAction)
    /// A download continues a partial one kept from an interrupted run (or attempt):
    /// `bytesKept` were hashed again and are not fetched. Comes after `.modelStarted` and before
    /// the first `.progress` (which reports the same bytes).
    case resumed(modelId: String, bytesKept: Int64, totalBytes: Int64?)
    /// A download waits for a network the policy allows (`policies.network.waitForConnectivity`
    /// on Apple platforms, where URLSession says so; at most once per request): nothing moves
    /// until one appears or the deadline passes.
    case waitingForNetwork(modelId: String)
    /// Bytes of a download: written so far and the total when known.
    case progress(modelId: String, bytesWritten: Int64, totalBytes: Int64?)
    /// A retryable failure; the action is retried after `delay`.
    case retrying(modelId: String?, attempt: Int, delay: Duration, reason: String)
    /// An action finished (or was not run).
    case modelFinished(ModelResult)
    /// The run is over.
    case finished(SyncReport)
}

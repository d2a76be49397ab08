import Foundation

/// What happened to a background download (`BackgroundModelDownloads`'s `onEvent`). Decided by
/// `BackgroundSessionLogic` on every platform, so Linux tests each case; the system's calls that
/// lead to them happen on Apple platforms only.
public enum BackgroundDownloadEvent: Sendable, Equatable {
    /// Bytes the system has written so far, and the total when the storage host said.
    case progress(modelId: String, bytesWritten: Int64, totalBytes: Int64?)
    /// The file was verified (SHA-256 and size) and installed as `<modelId>.bin`.
    case installed(DownloadedModel)
    /// The file is downloaded and kept in the store's partial folder under a temporary name,
    /// but the background time ran out before it was verified. It is verified and installed at
    /// the next launch (when `BackgroundModelDownloads` is created) or on
    /// `finishPendingInstalls()`; nothing is installed unverified meanwhile.
    case installDeferred(modelId: String)
    /// The storage host refused or could not serve the transfer; the SDK resolved a fresh
    /// signed URL through the registry and handed the transfer to the system again.
    case requeued(modelId: String, reason: BackgroundRequeueReason)
    /// The system stopped the transfer for a reason of its own (the user force-quit the app, …).
    /// `resumable`: the system handed over resume data, kept beside the store's partials;
    /// `enqueue` the model again to continue from there (while the signed URL it was made with
    /// is still valid; after that it starts over).
    case interrupted(modelId: String, reason: BackgroundInterruption, resumable: Bool)
    /// It failed (network, TLS, an unusable answer, a digest mismatch, the retry budget spent);
    /// the installed file, if any, is untouched. Enqueue it again to retry; resume data the
    /// system gave with the failure is kept and used.
    case failed(modelId: String, error: APIError)

    /// The model this event is about.
    public var modelId: String {
        switch self {
        case .progress(let id, _, _), .installDeferred(let id), .requeued(let id, _), .interrupted(let id, _, _),
             .failed(let id, _):
            return id
        case .installed(let model):
            return model.modelId
        }
    }
}

/// What `BackgroundModelDownloads.enqueue` did.
public enum BackgroundEnqueueOutcome: Sendable, Equatable {
    /// A new transfer was handed to the system.
    case started
    /// The transfer continues from resume data kept after the system stopped it.
    case resumed
    /// A transfer of this artifact is already with the system: nothing new.
    case alreadyRunning
    /// The artifact is already downloaded and is being verified and installed.
    case installing
}

/// Why the SDK handed a transfer to the system again.
public enum BackgroundRequeueReason: Sendable, Equatable {
    /// The signed URL expired (the storage host answered 403 or 410): a discretionary or
    /// Wi-Fi-only transfer that started late, or the system's own retry after the URL's lifetime.
    case urlExpired(status: Int)
    /// The storage host was busy or failing (429, 5xx).
    case storageUnavailable(status: Int)
}

/// Why the system cancelled a background transfer (`URLError.BackgroundTaskCancelledReason`).
public enum BackgroundInterruption: Sendable, Equatable {
    /// The user force-quit the app (swiped it away in the app switcher): the system cancels the
    /// session's transfers and hands them over at the next launch.
    case userForceQuit
    /// Background App Refresh is off for the app, or in Low Power Mode.
    case backgroundUpdatesDisabled
    /// The system lacked the resources (battery, thermal state, network, data plan).
    case insufficientSystemResources
    /// A reason this SDK does not know (a newer system's).
    case other
}

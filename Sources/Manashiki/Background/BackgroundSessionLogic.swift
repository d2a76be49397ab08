import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ManashikiCore

/// The decisions `BackgroundModelDownloads` (Apple platforms only) makes in its delegate
/// callbacks, as pure functions of plain values, so Linux tests every one of them: what the
/// session is called, whether it can work in an extension, which CAs it trusts, what a finished
/// task becomes, what a failed one becomes, and what an `enqueue` does. `BackgroundTransfers`
/// carries them out; the Apple glue only reads the values out of `URLSession`'s objects.
enum BackgroundSessionLogic {
    /// The identifier used when the process has no bundle identifier (a test runner).
    static let fallbackIdentifier = "com.manashiki.models.background"
    /// What follows the bundle identifier in the default session identifier.
    static let identifierSuffix = ".manashiki.background"

    /// The default session identifier: `<bundle identifier>.manashiki.background`. An app
    /// extension has a bundle identifier of its own (`com.acme.app.widget`), so the app and each
    /// extension get their own session, as Apple requires: one identifier in two processes is
    /// undefined behaviour.
    static func defaultIdentifier(bundleIdentifier: String?) -> String {
        guard let id = bundleIdentifier, !id.isEmpty else { return fallbackIdentifier }
        return id + identifierSuffix
    }

    /// Whether the main bundle is an app extension (`.appex`).
    static func isAppExtension(bundleURL: URL) -> Bool { bundleURL.pathExtension == "appex" }

    /// Why a background session configured like this cannot work, or nil. Apple invalidates a
    /// background session created in an app extension without a `sharedContainerIdentifier`
    /// (`URLError.backgroundSessionRequiresSharedContainer`).
    static func configurationProblem(identifier: String, isAppExtension: Bool, appGroup: String?) -> BackgroundSessionError? {
        if let appGroup, appGroup.trimmingCharacters(in: .whitespaces).isEmpty {
            return BackgroundSessionError(identifier: identifier, problem: .emptyAppGroup)
        }
        if isAppExtension && appGroup == nil {
            return BackgroundSessionError(identifier: identifier, problem: .extensionWithoutAppGroup)
        }
        return nil
    }

    /// Why the system invalidated a session, from the error's `URLError` code:
    /// `backgroundSessionRequiresSharedContainer` (-995) and `backgroundSessionInUseByAnotherProcess`
    /// (-996) (developer.apple.com/documentation/foundation/urlerror; iOS 8, macOS 10.10,
    /// tvOS 9, watchOS 2, visionOS 1) say what to do; anything else is passed on as worded.
    static func invalidation(code: Int?, description: String, identifier: String) -> BackgroundSessionError {
        switch code {
        case .some(-995): return BackgroundSessionError(identifier: identifier, problem: .extensionWithoutAppGroup)
        case .some(-996): return BackgroundSessionError(identifier: identifier, problem: .inUseByAnotherProcess)
        default: return BackgroundSessionError(identifier: identifier, problem: .invalidated(description))
        }
    }

    /// The CAs a client's foreground transfers trust, so its background transfers trust the
    /// same (`ServerTrustEvaluation` answers both sessions' challenges).
    static func trust(of transport: any HTTPTransport) -> TLSTrust {
        if let transport = transport as? DefaultTransport { return transport.trust }
        if let transport = transport as? URLSessionTransport { return transport.trust }
        return .system
    }

    /// The evaluation the background session answers server-trust challenges with: the one the
    /// foreground `URLSessionTransport` uses, with `override` or the client transport's CAs.
    static func serverTrust(of client: ManashikiClient, override: TLSTrust?) -> ServerTrustEvaluation {
        ServerTrustEvaluation(trust: override ?? trust(of: client.transport))
    }

    // MARK: A finished task

    /// What `urlSession(_:downloadTask:didFinishDownloadingTo:)` does with the system's file.
    enum Finish: Sendable, Equatable {
        /// Move it into the store and verify it (`BackgroundInstall`).
        case adopt
        /// Discard it, resolve a fresh URL through the registry and hand the transfer over again.
        case requeue(BackgroundRequeueReason)
        /// Discard it and report.
        case fail(APIError)
    }

    /// Decides from the task's HTTP status and the URL the file finally came from.
    ///
    /// A background session follows redirects itself and never asks its delegate
    /// (`urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)` "is called
    /// only for tasks in default and ephemeral sessions"), so the URL policy every other
    /// download applies to each redirect is applied here to `finalURL`: plain http to another
    /// host, another scheme or credentials in the URL are refused, and the file is not installed.
    /// A 403/410 (the signed URL expired) and a 429/5xx are requeued while `ticket.retries` is
    /// below `maxRetries`.
    static func finish(status: Int?, finalURL: URL?, ticket: BackgroundDownloadTicket, maxRetries: Int) -> Finish {
        if let finalURL, let reason = URLPolicy.refusal(for: finalURL) {
            return .fail(.refusedURL("the storage host redirected the background download of \(ticket.modelId) to a URL that is not allowed (\(reason)); the file is not installed"))
        }
        let id = ticket.modelId
        switch status {
        case 200?:
            return .adopt
        case let s? where s == 403 || s == 410:
            guard ticket.retries < maxRetries else {
                return .fail(.unexpectedStatus(status: s, message: "the storage host kept refusing fresh download URLs of \(id) (\(ticket.retries) tried); check the device clock and enqueue it again"))
            }
            return .requeue(.urlExpired(status: s))
        case let s? where s == 429 || s >= 500:
            guard ticket.retries < maxRetries else {
                return .fail(.server(status: s, message: "the storage host could not serve \(id) after \(ticket.retries) retries; enqueue it again later"))
            }
            return .requeue(.storageUnavailable(status: s))
        default:
            return .fail(.unexpectedStatus(status: status ?? 0, message: "the storage host did not send \(id) (the background download got no 200 answer); enqueue it again"))
        }
    }

    /// When a requeued transfer may start: at once after an expired URL; after a backoff
    /// (30 s, doubled per retry, at most 15 min) for a busy or failing storage host.
    static func notBefore(_ reason: BackgroundRequeueReason, retries: Int, now: Date) -> Date? {
        guard case .storageUnavailable = reason else { return nil }
        return now.addingTimeInterval(min(900, 30 * pow(2, Double(max(0, retries)))))
    }

    // MARK: A failed task

    /// A task's error as `urlSession(_:task:didCompleteWithError:)` hands it over, reduced to
    /// plain values (`URLError`'s `backgroundTaskCancelledReason` and `downloadTaskResumeData`
    /// exist only on Apple platforms).
    struct TaskFailure: Sendable, Equatable {
        /// What kind of failure the error code says.
        enum Kind: Sendable, Equatable {
            /// `URLError.cancelled`.
            case cancelled
            /// `URLError.timedOut`: in a background session, the resource timeout (the deadline)
            /// passed; the system retries other timeouts by itself.
            case timedOut
            /// Anything else (network, TLS, …).
            case other
        }

        var kind: Kind
        /// Why the system cancelled the task, when it says (`backgroundTaskCancelledReason`).
        var cancelledReason: BackgroundInterruption?
        /// The resume data the system handed over (`downloadTaskResumeData`).
        var resumeData: Data?
        /// The error as the foreground words it (`TransportErrorText`).
        var error: APIError
    }

    /// What a failure becomes.
    enum FailureOutcome: Sendable, Equatable {
        /// Cancelled by this SDK (a superseded or cancelled transfer): nothing to report.
        case ignored
        /// The system stopped it; keep `resumeData` (if any) for the next enqueue.
        case interrupted(BackgroundInterruption, resumeData: Data?)
        /// It failed; keep `resumeData` (if any) for the next enqueue.
        case failed(APIError, resumeData: Data?)
    }

    /// Classifies a failure: a cancellation with a system reason (force-quit, Background App
    /// Refresh off, no resources) is an interruption with its resume data, not the "request was
    /// cancelled" of a foreground transfer; a cancellation without one is this SDK's own; a
    /// timeout is the deadline (`deadline` seconds) having passed.
    static func classify(_ failure: TaskFailure, modelId: String, deadline: TimeInterval) -> FailureOutcome {
        switch failure.kind {
        case .cancelled:
            guard let reason = failure.cancelledReason else { return .ignored }
            return .interrupted(reason, resumeData: failure.resumeData)
        case .timedOut:
            return .failed(.transport("the background download of \(modelId) did not finish within the \(deadlineText(deadline)) allowed (no suitable network, or too slow a one); enqueue it again, or allow more time"),
                           resumeData: failure.resumeData)
        case .other:
            return .failed(failure.error, resumeData: failure.resumeData)
        }
    }

    private static func deadlineText(_ seconds: TimeInterval) -> String {
        if seconds >= 86_400, seconds.truncatingRemainder(dividingBy: 86_400) == 0 { return "\(Int(seconds / 86_400)) days" }
        if seconds >= 3_600, seconds.truncatingRemainder(dividingBy: 3_600) == 0 { return "\(Int(seconds / 3_600)) h" }
        return String(format: "%g s", seconds)
    }

    // MARK: Enqueue

    /// One of the session's tasks, as `getAllTasks` hands it over.
    struct TaskSnapshot: Sendable, Equatable {
        /// What the system is doing with it.
        enum State: Sendable, Equatable { case running, suspended, canceling, completed }

        var taskIdentifier: Int
        var ticket: BackgroundDownloadTicket?
        var state: State
        var bytesReceived: Int64
        /// `countOfBytesExpectedToReceive`; nil when unknown (`-1`).
        var bytesExpected: Int64?
        /// Whether a response has arrived.
        var hasResponse: Bool

        /// Whether the system will still deliver it.
        var isLive: Bool { state == .running || state == .suspended }
    }

    /// What `enqueue` does.
    enum EnqueuePlan: Sendable, Equatable {
        /// A live task already fetches this artifact: nothing new (enqueue is idempotent).
        case alreadyRunning
        /// The artifact is downloaded and awaits verification: verify and install it.
        case installPending
        /// Start a task (from `resumeData` when given), after cancelling the tasks of this
        /// model that fetch another artifact (the catalog moved on).
        case start(resumeData: Data?, cancelling: [Int])
    }

    /// Plans an enqueue of `ticket` given the session's tasks and the model's record. Resume
    /// data is used only while the signed URL it was made with is valid (`urlExpiresAt`):
    /// Apple's resume data cannot be pointed at a fresh URL, so an expired one would only fetch
    /// a 403 page.
    static func enqueuePlan(_ ticket: BackgroundDownloadTicket, record: BackgroundRecord?, tasks: [TaskSnapshot], now: Date) -> EnqueuePlan {
        let live = tasks.filter { $0.isLive && $0.ticket?.modelId == ticket.modelId }
        if live.contains(where: { $0.ticket.map(ticket.isSameArtifact) ?? false }) { return .alreadyRunning }
        let stale = live.map(\.taskIdentifier).sorted()
        guard let record, record.ticket.isSameArtifact(as: ticket) else { return .start(resumeData: nil, cancelling: stale) }
        switch record.state {
        case .downloaded:
            return stale.isEmpty ? .installPending : .start(resumeData: nil, cancelling: stale)
        case .resumable:
            let valid = record.ticket.urlExpiresAt.map { $0 > now } ?? true
            return .start(resumeData: valid ? record.resumeData : nil, cancelling: stale)
        }
    }

    /// What the SDK knows of each model this session handles: the system's live tasks, then
    /// the records of files awaiting verification and of kept resume data.
    static func statuses(tasks: [TaskSnapshot], records: [BackgroundRecord]) -> [BackgroundTransferStatus] {
        var result: [BackgroundTransferStatus] = []
        var seen = Set<String>()
        for task in tasks where task.isLive {
            guard let ticket = task.ticket, seen.insert(ticket.modelId).inserted else { continue }
            let state: BackgroundTransferStatus.State
            if task.state == .suspended {
                state = .suspended
            } else if !task.hasResponse && task.bytesReceived == 0 {
                state = .waiting
            } else {
                state = .transferring
            }
            result.append(BackgroundTransferStatus(modelId: ticket.modelId, state: state, bytesReceived: task.bytesReceived,
                                                   totalBytes: task.bytesExpected ?? ticket.size))
        }
        for record in records where seen.insert(record.ticket.modelId).inserted {
            let state: BackgroundTransferStatus.State = record.state == .downloaded ? .awaitingInstall : .resumable
            result.append(BackgroundTransferStatus(modelId: record.ticket.modelId, state: state,
                                                   bytesReceived: record.state == .downloaded ? record.ticket.size ?? 0 : 0,
                                                   totalBytes: record.ticket.size))
        }
        return result.sorted { $0.modelId < $1.modelId }
    }
}

/// What a background session is doing with one model (`BackgroundModelDownloads.status()`).
public struct BackgroundTransferStatus: Sendable, Equatable {
    /// The state of a transfer.
    public enum State: Sendable, Equatable {
        /// Handed to the system, no byte yet: it waits for a network the policy allows (a
        /// background session always waits; nothing tells the app so otherwise), for power or
        /// Wi-Fi when discretionary, or for its start date.
        case waiting
        /// Bytes are arriving.
        case transferring
        /// Suspended.
        case suspended
        /// Downloaded, kept under a temporary name, to be verified and installed.
        case awaitingInstall
        /// Stopped by the system (force-quit, …) with resume data kept; `enqueue` continues it.
        case resumable
    }

    /// The model.
    public var modelId: String
    /// What is happening.
    public var state: State
    /// Bytes received so far (for `resumable`, 0: the system does not say how many the
    /// resume data keeps).
    public var bytesReceived: Int64
    /// The size, when known.
    public var totalBytes: Int64?

    /// Creates a status.
    public init(modelId: String, state: State, bytesReceived: Int64, totalBytes: Int64?) {
        self.modelId = modelId
        self.state = state
        self.bytesReceived = bytesReceived
        self.totalBytes = totalBytes
    }
}

/// A background session that cannot work as configured; thrown by
/// `BackgroundModelDownloads.enqueue` with what to do.
public struct BackgroundSessionError: Error, Sendable, Equatable, LocalizedError {
    /// What is wrong.
    public enum Problem: Sendable, Equatable {
        /// Created in an app extension without `appGroup:`: Apple invalidates such a session.
        case extensionWithoutAppGroup
        /// `appGroup:` is empty.
        case emptyAppGroup
        /// Another process (the app, or one of its extensions) is connected to a session with
        /// this identifier; a session serves one process at a time.
        case inUseByAnotherProcess
        /// The system invalidated the session (its reason).
        case invalidated(String)
    }

    /// The session's identifier.
    public let identifier: String
    /// What is wrong.
    public let problem: Problem

    /// Creates the error.
    public init(identifier: String, problem: Problem) {
        self.identifier = identifier
        self.problem = problem
    }

    /// What happened and what to do.
    public var errorDescription: String? {
        switch problem {
        case .extensionWithoutAppGroup:
            return "The background session \(identifier) was created in an app extension without an App Group: Apple invalidates it. Add an App Group to both the app and the extension (Signing & Capabilities) and pass it as BackgroundModelDownloads(appGroup:); keep the store in that group's container (BackgroundModelDownloads.storageDirectory(appGroup:))."
        case .emptyAppGroup:
            return "The background session \(identifier) was given an empty App Group identifier. Pass the identifier of an App Group the app (and its extensions) belong to, e.g. group.com.acme.models, or nil outside an extension."
        case .inUseByAnotherProcess:
            return "Another process is connected to the background session \(identifier): the app and an extension used one identifier at the same time, and the system invalidated this one. Let each process use its own (the default, BackgroundModelDownloads.defaultIdentifier); the app connects to an extension's session only when the system hands it that session's events."
        case .invalidated(let reason):
            return "The system invalidated the background session \(identifier) (\(reason)); create BackgroundModelDownloads again at the next launch. If this happens in an app extension, check that appGroup: names an App Group the extension belongs to."
        }
    }
}

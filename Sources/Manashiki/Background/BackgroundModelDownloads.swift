#if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
import Foundation
import ManashikiCore

/// Model downloads that the system performs while the app is suspended or not running: one
/// background `URLSession` per app or app extension, ending in the same verify-and-install
/// step as every other download. This class only reads values out of `URLSession`'s objects and
/// hands them to `BackgroundTransfers` (and `BackgroundSessionLogic`, `BackgroundInstall`,
/// `BackgroundEventsHandshake`), which decide and act and are tested on Linux. What happens in
/// each case (suspension, termination, force-quit, reboot, an expired URL, no network, an
/// extension) is in docs/apple-background.md.
///
/// Create exactly one instance per identifier for the life of the process, at launch, with the
/// same identifier every time: two sessions with one identifier are undefined behaviour
/// (Apple, "Downloading files in the background"), and the session keeps its delegate (this
/// object) until the process ends. Creating it also verifies and installs files whose
/// verification the system's time cut short at the previous launch.
///
/// * **Identifier**: by default `<bundle identifier>.manashiki.background`
///   (`defaultIdentifier`), so an app and each of its extensions get their own session.
/// * **App extensions** (`appGroup:`): the session's `sharedContainerIdentifier`, required in
///   an extension (Apple invalidates the session otherwise; `enqueue` then throws
///   `BackgroundSessionError` saying so). Keep the store in the group's container
///   (`storageDirectory(appGroup:)`) so the app and the extension share the models.
/// * **Private CAs**: server-trust challenges are answered by the same `ServerTrustEvaluation`
///   as the foreground `URLSessionTransport`, with the client transport's `TLSTrust` unless
///   `trust:` says otherwise.
/// * **Redirects**: a background session follows them without asking its delegate, so the URL
///   policy is applied to the URL the file finally came from (`APIError.refusedURL`).
///
/// Availability (developer.apple.com/documentation/foundation, each checked for the deployment
/// targets macOS 13, iOS 16, tvOS 16, watchOS 9, visionOS 1; all are older, so no `#available`):
/// `URLSessionConfiguration.background(withIdentifier:)`, `sharedContainerIdentifier` iOS 8,
/// macOS 10.10, tvOS 9, watchOS 2, visionOS 1; `sessionSendsLaunchEvents`,
/// `urlSessionDidFinishEvents(forBackgroundURLSession:)` iOS 7, Mac Catalyst 13.1, macOS 11,
/// tvOS 9, watchOS 2, visionOS 1; `timeoutIntervalForResource` (default 7 days; a background
/// session's tasks are retried after a timeout until it passes), `isDiscretionary`,
/// `downloadTask(withResumeData:)`, `urlSession(_:didReceive:completionHandler:)`,
/// `urlSession(_:didBecomeInvalidWithError:)`,
/// `urlSession(_:downloadTask:didWriteData:totalBytesWritten:totalBytesExpectedToWrite:)` iOS 7,
/// macOS 10.9, tvOS 9, watchOS 2, visionOS 1; `getAllTasks(completionHandler:)` iOS 9, macOS
/// 10.11, tvOS 9, watchOS 2, visionOS 1; `countOfBytesClientExpectsToReceive`,
/// `earliestBeginDate` iOS 11, macOS 10.13, tvOS 11, watchOS 4, visionOS 1;
/// `URLError.backgroundTaskCancelledReason` and `.downloadTaskResumeData` iOS 13, macOS 10.15,
/// tvOS 13, watchOS 6, visionOS 1; `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`
/// iOS 7, macOS 10.8, tvOS 9, watchOS 2, visionOS 1 (on macOS it returns a URL even for a group
/// the app is not in); SwiftUI's `Scene.backgroundTask(_:action:)` with `BackgroundTask.urlSession`
/// iOS 16, macOS 13, tvOS 16, watchOS 9, visionOS 1; UIKit's
/// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` iOS 7, Mac Catalyst
/// 13.1, visionOS 1 (its handler is a plain `() -> Void`, "call it on your main thread").
/// `urlSession(_:taskIsWaitingForConnectivity:)` is not implemented: NSURLSession.h says it
/// "will never be called for background sessions, because the waitForConnectivity property is
/// ignored by those sessions" (they always wait); `status()` tells a waiting transfer instead.
/// Not compiled or run on Apple platforms in this repository's CI (see docs/apple-background.md).
///
/// ```swift
/// // UIKit app delegate:
/// func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
///                  completionHandler: @escaping () -> Void) {
///     if !downloads.handleEvents(forBackgroundURLSession: identifier, completionHandler: completionHandler) {
///         completionHandler() // another session of the app; or hand it to that session's owner
///     }
/// }
///
/// // SwiftUI (the action's return tells the system the events are handled):
/// .backgroundTask(.urlSession) { identifier in
///     await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
///         if !downloads.handleEvents(forBackgroundURLSession: identifier, completionHandler: { done.resume() }) {
///             done.resume()
///         }
///     }
/// }
/// ```
public final class BackgroundModelDownloads: NSObject, URLSessionDownloadDelegate, @unchecked Sendable {
    /// What happened to a background download.
    public typealias Event = BackgroundDownloadEvent

    /// What `enqueue` did.
    public typealias Enqueued = BackgroundEnqueueOutcome

    /// The identifier this process uses unless told otherwise:
    /// `<main bundle identifier>.manashiki.background` (an app and each of its extensions have
    /// their own), or `com.manashiki.models.background` without a bundle identifier.
    public static var defaultIdentifier: String {
        BackgroundSessionLogic.defaultIdentifier(bundleIdentifier: Bundle.main.bundleIdentifier)
    }

    /// The default identifier of the process whose bundle identifier is `bundleIdentifier`:
    /// what the containing app passes as `identifier:` to take over an extension's session when
    /// the system hands it that session's events
    /// (`application(_:handleEventsForBackgroundURLSession:completionHandler:)` with
    /// `defaultIdentifier(forBundleIdentifier: "com.acme.app.widget")`).
    public static func defaultIdentifier(forBundleIdentifier bundleIdentifier: String) -> String {
        BackgroundSessionLogic.defaultIdentifier(bundleIdentifier: bundleIdentifier)
    }

    /// `Library/Application Support/ManashikiModels` in the App Group's container, the store to
    /// give the client (`ManashikiClient(storageDirectory:)`) when an app and its extensions
    /// share models; nil when the process does not belong to the group (on iOS; macOS returns
    /// a path even then).
    public static func storageDirectory(appGroup: String) -> URL? {
        FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: appGroup)?
            .appendingPathComponent("Library/Application Support/ManashikiModels", isDirectory: true)
    }

    /// The session's identifier.
    public let identifier: String

    private let core: BackgroundTransfers<SystemCompletion>
    private let onEvent: @Sendable (Event) -> Void
    private let evaluation: ServerTrustEvaluation
    private let invalidation = Locked<BackgroundSessionError?>(nil)
    private let box: SessionHolder

    /// Creates the process's background session (do it once, at launch, before handling events).
    /// - Parameters:
    ///   - identifier: the session's identifier, the same at every launch; default
    ///     `defaultIdentifier`.
    ///   - appGroup: the App Group whose container the system downloads into
    ///     (`sharedContainerIdentifier`): required in an app extension.
    ///   - policy: cellular and Low Data Mode policy (a background session always waits for a
    ///     suitable network).
    ///   - discretionary: let the system pick a good time (on power, on Wi-Fi).
    ///   - deadline: the most a transfer may take, waiting for a network included
    ///     (`timeoutIntervalForResource`); nil keeps the system's 7 days.
    ///   - trust: CAs trusted besides the system's; nil takes the client transport's `TLSTrust`.
    ///   - maxRetries: fresh URLs (after a 403/410) or retries (after a 429/5xx) per transfer.
    ///   - sessionToken: the session token of a model that needs one, asked when `enqueue` is
    ///     given none and when a transfer is requeued after its URL expired.
    ///   - onEvent: called on a background queue, also after a relaunch.
    public init(client: ManashikiClient, identifier: String? = nil, appGroup: String? = nil, policy: NetworkPolicy = .default,
                discretionary: Bool = false, deadline: TimeInterval? = nil, trust: TLSTrust? = nil, maxRetries: Int = 3,
                sessionToken: (@Sendable (_ modelId: String) async throws -> String?)? = nil,
                onEvent: @escaping @Sendable (Event) -> Void) {
        let identifier = identifier ?? Self.defaultIdentifier
        let box = SessionHolder()
        self.box = box
        self.identifier = identifier
        self.onEvent = onEvent
        evaluation = BackgroundSessionLogic.serverTrust(of: client, override: trust)
        var settings = BackgroundTransfers<SystemCompletion>.Settings(identifier: identifier)
        settings.problem = BackgroundSessionLogic.configurationProblem(identifier: identifier,
                                                                       isAppExtension: BackgroundSessionLogic.isAppExtension(bundleURL: Bundle.main.bundleURL),
                                                                       appGroup: appGroup)
        settings.maxRetries = max(0, maxRetries)
        if let deadline { settings.deadline = deadline }
        settings.sessionToken = sessionToken
        core = BackgroundTransfers(client: client, settings: settings, environment: Self.environment(box), onEvent: onEvent)
        super.init()
        let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
        policy.apply(to: configuration)
        configuration.sharedContainerIdentifier = appGroup
        configuration.isDiscretionary = discretionary
        configuration.sessionSendsLaunchEvents = true
        configuration.timeoutIntervalForResource = settings.deadline
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "manashiki.background.\(identifier)"
        box.session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
        core.scheduleInstalls() // files the previous launch could not verify in time
    }

    /// What the platform does for `BackgroundTransfers`.
    private static func environment(_ box: SessionHolder) -> BackgroundTransfers<SystemCompletion>.Environment {
        .init(
            startTask: { request, resumeData, ticket, notBefore in
                guard let session = box.session else { return }
                let task = resumeData.map { session.downloadTask(withResumeData: $0) } ?? session.downloadTask(with: request)
                task.taskDescription = ticket.taskDescription
                if let size = ticket.size { task.countOfBytesClientExpectsToReceive = size }
                task.earliestBeginDate = notBefore
                task.resume()
            },
            cancelTasks: { ids in cancel(ids, in: box) },
            releaseHandlers: { handlers in
                // UIKit's handler must be called on the main thread.
                for handler in handlers { DispatchQueue.main.async { handler.run() } }
            },
            after: { seconds, body in DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: body) },
            backgroundTime: { reason, work in BackgroundTime.perform(reason: reason, work) },
            now: { Date().timeIntervalSinceReferenceDate })
    }

    /// Resolves the model's signed URL now and hands the transfer to the system; continues
    /// from resume data kept after a force-quit or a failure while its URL is valid; does
    /// nothing new when a transfer of the same artifact is already with the system.
    /// - Throws: `BackgroundSessionError` when the session cannot work (an extension without an
    ///   App Group, an invalidated session); what `ManashikiClient.backgroundDownloadRequest`
    ///   throws.
    @discardableResult
    public func enqueue(_ modelId: String, session token: String? = nil, expecting: ExpectedArtifact? = nil) async throws -> Enqueued {
        if let problem = invalidation.current { throw problem }
        return try await core.enqueue(modelId, session: token, expecting: expecting, tasks: await snapshots())
    }

    /// Cancels the model's transfer and forgets its kept resume data and any downloaded file
    /// awaiting verification. The installed file, if any, is untouched.
    public func cancel(_ modelId: String) async {
        let ids = await snapshots().filter { $0.ticket?.modelId == modelId }.map(\.taskIdentifier)
        Self.cancel(ids, in: box)
        (try? core.records())?.discard(modelId)
    }

    /// What the system and the SDK are doing with each model of this session: waiting (for a
    /// network the policy allows, power or the system's schedule), transferring, suspended,
    /// awaiting verification, or resumable.
    public func status() async -> [BackgroundTransferStatus] {
        let records = (try? core.records())?.all() ?? []
        return BackgroundSessionLogic.statuses(tasks: await snapshots(), records: records)
    }

    /// Verifies and installs downloaded files that are waiting for it (the time ran out last
    /// time); call it when the app comes to the foreground. Creating the object does it too.
    public func finishPendingInstalls() { core.scheduleInstalls() }

    /// Takes the system's completion handler for this session's events and calls it (on the
    /// main thread) once they are delivered and the work they started is done.
    /// - Returns: false, and leaves `completionHandler` to the caller, when `identifier` is
    ///   another session's.
    @discardableResult
    public func handleEvents(forBackgroundURLSession identifier: String, completionHandler: @escaping () -> Void) -> Bool {
        guard identifier == self.identifier else { return false }
        core.received(SystemCompletion(run: completionHandler))
        return true
    }

    private static func cancel(_ ids: [Int], in box: SessionHolder) {
        guard !ids.isEmpty else { return }
        box.session?.getAllTasks { tasks in
            for task in tasks where ids.contains(task.taskIdentifier) { task.cancel() }
        }
    }

    /// The session's tasks, reduced to what the logic needs.
    private func snapshots() async -> [BackgroundSessionLogic.TaskSnapshot] {
        guard let session = box.session else { return [] }
        return await withCheckedContinuation { (continuation: CheckedContinuation<[BackgroundSessionLogic.TaskSnapshot], Never>) in
            session.getAllTasks { tasks in continuation.resume(returning: tasks.map(Self.snapshot)) }
        }
    }

    private static func snapshot(_ task: URLSessionTask) -> BackgroundSessionLogic.TaskSnapshot {
        let state: BackgroundSessionLogic.TaskSnapshot.State
        switch task.state {
        case .running: state = .running
        case .suspended: state = .suspended
        case .canceling: state = .canceling
        case .completed: state = .completed
        @unknown default: state = .completed
        }
        return .init(taskIdentifier: task.taskIdentifier, ticket: BackgroundDownloadTicket(taskDescription: task.taskDescription), state: state,
                     bytesReceived: task.countOfBytesReceived,
                     bytesExpected: task.countOfBytesExpectedToReceive >= 0 ? task.countOfBytesExpectedToReceive : nil,
                     hasResponse: task.response != nil)
    }

    // MARK: URLSessionDelegate and URLSessionDownloadDelegate

    /// Server trust: the same evaluation as the foreground transport (`ServerTrustEvaluation`).
    public func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                           completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        core.taskActivity()
        let (disposition, credential) = evaluation.evaluate(challenge)
        completionHandler(disposition, credential)
    }

    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didWriteData bytesWritten: Int64,
                           totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64) {
        core.taskActivity()
        guard let ticket = BackgroundDownloadTicket(taskDescription: downloadTask.taskDescription) else { return }
        onEvent(.progress(modelId: ticket.modelId, bytesWritten: totalBytesWritten,
                          totalBytes: totalBytesExpectedToWrite >= 0 ? totalBytesExpectedToWrite : ticket.size))
    }

    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        guard let ticket = BackgroundDownloadTicket(taskDescription: downloadTask.taskDescription) else { return }
        let response = downloadTask.response as? HTTPURLResponse
        // Where the file really came from, after the redirects the session followed by itself.
        let finalURL = response?.url ?? downloadTask.currentRequest?.url
        core.finished(location: location, status: response?.statusCode, finalURL: finalURL, ticket: ticket)
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let error, let ticket = BackgroundDownloadTicket(taskDescription: task.taskDescription) else { return }
        core.failed(ticket: ticket, failure: Self.failure(error, host: task.originalRequest?.url?.host ?? "the storage host"))
    }

    /// An error reduced to what `BackgroundSessionLogic.classify` needs.
    private static func failure(_ error: any Error, host: String) -> BackgroundSessionLogic.TaskFailure {
        let urlError = error as? URLError
        let kind: BackgroundSessionLogic.TaskFailure.Kind = switch urlError?.code {
        case .cancelled?: .cancelled
        case .timedOut?: .timedOut
        default: .other
        }
        // Compared rather than switched over: whether Foundation's enum is frozen decides
        // whether a `switch` needs `@unknown default`, and either choice warns under the other.
        var reason: BackgroundInterruption?
        if let cancelled = urlError?.backgroundTaskCancelledReason {
            if cancelled == .userForceQuitApplication {
                reason = .userForceQuit
            } else if cancelled == .backgroundUpdatesDisabled {
                reason = .backgroundUpdatesDisabled
            } else if cancelled == .insufficientSystemResources {
                reason = .insufficientSystemResources
            } else {
                reason = .other
            }
        }
        return .init(kind: kind, cancelledReason: reason, resumeData: urlError?.downloadTaskResumeData,
                     error: TransportErrorText.apiError(for: error, host: host))
    }

    public func urlSession(_ session: URLSession, didBecomeInvalidWithError error: (any Error)?) {
        let reason = error.map { TransportErrorText.apiError(for: $0, host: "the system").localizedDescription } ?? "invalidated"
        let problem = BackgroundSessionLogic.invalidation(code: (error as? URLError)?.code.rawValue, description: reason, identifier: identifier)
        invalidation.withLock { $0 = problem }
    }

    // No `urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)`: Apple
    // calls it "only for tasks in default and ephemeral sessions"; see `BackgroundSessionLogic.finish`.

    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        core.eventsDelivered()
    }
}

/// The session, set once in `init` after `super.init()` (the environment's closures read it).
private final class SessionHolder: @unchecked Sendable {
    private let value = Locked<URLSession?>(nil)
    var session: URLSession? {
        get { value.current }
        set { value.withLock { $0 = newValue } }
    }
}

/// The system's completion handler (not `Sendable` in UIKit's signature), called once on the
/// main thread.
struct SystemCompletion: @unchecked Sendable {
    let run: () -> Void
}
#endif

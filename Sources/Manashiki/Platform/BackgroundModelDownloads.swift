#if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
import Foundation
import ManashikiCore

/// Model downloads that the system performs while the app is suspended or not running: one
/// background `URLSession` per app, ending in the same verify-and-install step as every other
/// download (`ManashikiClient.installDownloadedFile`, tested on Linux, as is every decision
/// this type makes: `BackgroundSessionLogic`, `BackgroundEventsHandshake`).
///
/// Create exactly one instance per identifier for the life of the process, at launch, with
/// the same identifier every time: two sessions with one identifier are undefined behaviour
/// (Apple, "Downloading files in the background"), and the session keeps its delegate (this
/// object) until the process ends.
///
/// Redirects: a background session follows them without asking its delegate, so the URL
/// policy is applied to the URL the file finally came from; a file fetched over plain http
/// from another host (or any scheme but https) is not installed (`APIError.refusedURL`).
///
/// Apple platforms only; the logic it calls is shared. Availability (developer.apple.com):
/// `URLSessionConfiguration.background(withIdentifier:)` iOS 8, macOS 10.10, tvOS 9, watchOS 2,
/// visionOS 1; `sessionSendsLaunchEvents` and `urlSessionDidFinishEvents(forBackgroundURLSession:)`
/// iOS 7, Mac Catalyst 13.1, macOS 11, tvOS 9, watchOS 2, visionOS 1;
/// `countOfBytesClientExpectsToReceive` iOS 11, macOS 10.13, tvOS 11, watchOS 4; SwiftUI's
/// `Scene.backgroundTask(_:action:)` with `BackgroundTask.urlSession` iOS 16, macOS 13, tvOS 16,
/// watchOS 9, visionOS 1; UIKit's
/// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` iOS 7, Mac Catalyst
/// 13.1, visionOS 1 (its handler is a plain `() -> Void`, "call it on your main thread"); the
/// network policy's properties, see `NetworkPolicy` — all at or below the deployment targets.
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
    public enum Event: Sendable {
        /// The file was verified and installed.
        case installed(DownloadedModel)
        /// It failed (network, an expired URL, a digest mismatch…); the installed file, if any,
        /// is untouched. Enqueue it again to retry.
        case failed(modelId: String, error: APIError)
    }

    /// The identifier this SDK uses unless told otherwise.
    public static let identifier = "com.manashiki.models.background"

    private let client: ManashikiClient
    private let onEvent: @Sendable (Event) -> Void
    private let events = Locked(BackgroundEventsHandshake<SystemCompletion>())
    private var session: URLSession!

    /// Creates the app's background session (do it once, at launch, before handling events).
    /// - Parameters:
    ///   - identifier: the session's identifier; the same at every launch.
    ///   - policy: cellular and Low Data Mode policy; `waitsForConnectivity` is implied.
    ///   - discretionary: let the system pick a good time (on power, on Wi-Fi).
    ///   - onEvent: called on the session's delegate queue, also after a relaunch.
    public init(client: ManashikiClient, identifier: String = BackgroundModelDownloads.identifier,
                policy: NetworkPolicy = .default, discretionary: Bool = false,
                onEvent: @escaping @Sendable (Event) -> Void) {
        self.client = client
        self.onEvent = onEvent
        super.init()
        let configuration = URLSessionConfiguration.background(withIdentifier: identifier)
        policy.apply(to: configuration)
        configuration.isDiscretionary = discretionary
        configuration.sessionSendsLaunchEvents = true
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.urlCache = nil
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: queue)
    }

    /// Resolves the model's signed URL now and hands the transfer to the system.
    /// - Throws: what `ManashikiClient.backgroundDownloadRequest` throws.
    public func enqueue(_ modelId: String, session token: String? = nil, expecting: ExpectedArtifact? = nil) async throws {
        let (request, ticket) = try await client.backgroundDownloadRequest(modelId, session: token, expecting: expecting)
        let task = session.downloadTask(with: request)
        task.taskDescription = ticket.taskDescription
        if let size = ticket.size { task.countOfBytesClientExpectsToReceive = size }
        task.resume()
    }

    /// Takes the system's completion handler for this session's events and calls it (on the
    /// main thread) once they are delivered, or at once when they already were.
    /// - Returns: false, and leaves `completionHandler` to the caller, when `identifier` is
    ///   another session's.
    @discardableResult
    public func handleEvents(forBackgroundURLSession identifier: String, completionHandler: @escaping () -> Void) -> Bool {
        guard identifier == session.configuration.identifier else { return false }
        let handler = SystemCompletion(run: completionHandler)
        Self.callOnMain(events.withLock { $0.received(handler) })
        return true
    }

    // MARK: URLSessionDownloadDelegate

    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        guard let ticket = BackgroundDownloadTicket(taskDescription: downloadTask.taskDescription) else { return }
        let response = downloadTask.response as? HTTPURLResponse
        // Where the file really came from, after the redirects the session followed by itself.
        let finalURL = response?.url ?? downloadTask.currentRequest?.url
        switch BackgroundSessionLogic.finish(client, location: location, status: response?.statusCode, finalURL: finalURL, ticket: ticket) {
        case .success(let model): onEvent(.installed(model))
        case .failure(let error): onEvent(.failed(modelId: ticket.modelId, error: error))
        }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let error, let ticket = BackgroundDownloadTicket(taskDescription: task.taskDescription) else { return }
        onEvent(.failed(modelId: ticket.modelId, error: TransportErrorText.apiError(for: error, host: task.originalRequest?.url?.host ?? "the storage host")))
    }

    // No `urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)`: Apple
    // calls it "only for tasks in default and ephemeral sessions"; see `BackgroundSessionLogic`.

    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        Self.callOnMain(events.withLock { $0.eventsDelivered() })
    }

    /// UIKit's handler must be called on the main thread.
    private static func callOnMain(_ handlers: [SystemCompletion]) {
        for handler in handlers { DispatchQueue.main.async { handler.run() } }
    }
}

/// The system's completion handler (not `Sendable` in UIKit's signature), called once on the
/// main thread.
private struct SystemCompletion: @unchecked Sendable {
    let run: () -> Void
}
#endif

#if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
import Foundation

/// Model downloads that the system performs while the app is suspended or not running: one
/// background `URLSession` per app (create one instance at launch, with the same identifier
/// every time), ending in the same verify-and-install step as every other download
/// (`ManashikiClient.installDownloadedFile`, tested on Linux).
///
/// Apple platforms only; the logic it calls is shared. Availability (developer.apple.com):
/// `URLSessionConfiguration.background(withIdentifier:)` iOS 8, macOS 10.10, tvOS 9, watchOS 2,
/// visionOS 1; `sessionSendsLaunchEvents` and `urlSessionDidFinishEvents(forBackgroundURLSession:)`
/// iOS 7, Mac Catalyst 13.1, macOS 11, tvOS 9, watchOS 2, visionOS 1; SwiftUI's
/// `.backgroundTask(.urlSession(_:))` iOS 16, macOS 13, tvOS 16, watchOS 9, visionOS 1; UIKit's
/// `application(_:handleEventsForBackgroundURLSession:completionHandler:)` iOS 7, Mac Catalyst
/// 13.1, visionOS 1; the network policy's properties, see `NetworkPolicy` — all at or below the
/// deployment targets.
///
/// ```swift
/// // App delegate (UIKit), or `.backgroundTask(.urlSession(BackgroundModelDownloads.identifier))` in SwiftUI:
/// func application(_ application: UIApplication, handleEventsForBackgroundURLSession identifier: String,
///                  completionHandler: @escaping () -> Void) {
///     downloads.handleEvents(forBackgroundURLSession: identifier, completionHandler: completionHandler)
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
    private let lock = NSLock()
    private var completionHandler: SystemCompletion?
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

    /// Keeps the system's completion handler until the session's events are delivered
    /// (`application(_:handleEventsForBackgroundURLSession:completionHandler:)`, UIKit, iOS 7 /
    /// tvOS 9 / visionOS 1 / Mac Catalyst 13.1).
    public func handleEvents(forBackgroundURLSession identifier: String, completionHandler: @escaping () -> Void) {
        guard identifier == session.configuration.identifier else { return }
        lock.lock(); self.completionHandler = SystemCompletion(run: completionHandler); lock.unlock()
    }

    // MARK: URLSessionDownloadDelegate

    public func urlSession(_ session: URLSession, downloadTask: URLSessionDownloadTask, didFinishDownloadingTo location: URL) {
        guard let ticket = BackgroundDownloadTicket(taskDescription: downloadTask.taskDescription) else { return }
        let status = (downloadTask.response as? HTTPURLResponse)?.statusCode
        do {
            onEvent(.installed(try client.installDownloadedFile(at: location, status: status, for: ticket)))
        } catch let error as APIError {
            onEvent(.failed(modelId: ticket.modelId, error: error))
        } catch {
            onEvent(.failed(modelId: ticket.modelId, error: .fileSystem(operation: "install", path: location.path, code: POSIX.errnoCode(of: error))))
        }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let error, let ticket = BackgroundDownloadTicket(taskDescription: task.taskDescription) else { return }
        onEvent(.failed(modelId: ticket.modelId, error: TransportErrorText.apiError(for: error, host: task.originalRequest?.url?.host ?? "the storage host")))
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                           newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void) {
        // The same policy as every download: https (or loopback http) only, no credentials.
        completionHandler(request.url.flatMap { URLPolicy.refusal(for: $0) == nil ? request : nil })
    }

    public func urlSessionDidFinishEvents(forBackgroundURLSession session: URLSession) {
        lock.lock(); let handler = completionHandler; completionHandler = nil; lock.unlock()
        // Apple asks for the handler to be called on the main thread.
        if let handler { DispatchQueue.main.async { handler.run() } }
    }
}

/// The system's completion handler (not `Sendable` in UIKit's signature), called once on the
/// main thread.
private struct SystemCompletion: @unchecked Sendable {
    let run: () -> Void
}
#endif

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ManashikiCore

/// What `BackgroundModelDownloads` (Apple platforms only) decides in its delegate callbacks,
/// kept free of `URLSession` so Linux tests it.
enum BackgroundSessionLogic {
    /// The outcome of `urlSession(_:downloadTask:didFinishDownloadingTo:)`: the file at
    /// `location` verified and installed, or why not. Runs before the delegate returns (the
    /// system deletes `location` afterwards).
    ///
    /// A background session follows redirects itself and never asks its delegate
    /// (`urlSession(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)` "is called
    /// only for tasks in default and ephemeral sessions"), so the URL policy every other
    /// download applies to each redirect is applied here to where the file really came from,
    /// `finalURL` (the task's response URL): plain http to another host, another scheme or
    /// credentials in the URL are refused, and the file is not installed.
    static func finish(_ client: ManashikiClient, location: URL, status: Int?, finalURL: URL?,
                       ticket: BackgroundDownloadTicket) -> Result<DownloadedModel, APIError> {
        if let finalURL, let reason = URLPolicy.refusal(for: finalURL) {
            return .failure(.refusedURL("the storage host redirected the background download of \(ticket.modelId) to a URL that is not allowed (\(reason)); the file is not installed"))
        }
        do {
            return .success(try client.installDownloadedFile(at: location, status: status, for: ticket))
        } catch let error as APIError {
            return .failure(error)
        } catch {
            return .failure(.fileSystem(operation: "install", path: location.path, code: POSIX.errnoCode(of: error)))
        }
    }
}

/// The hand-shake between the app's `handleEvents(forBackgroundURLSession:completionHandler:)`
/// and the session's `urlSessionDidFinishEvents(forBackgroundURLSession:)`. The system's
/// completion handler is called exactly once, whichever comes first: the session is created at
/// launch, so it may deliver its events and finish before UIKit hands the app the handler
/// (Apple's order is the other way round); a handler kept until then would never be called and
/// the system would count the app as never finishing. A second handler before the first was
/// used releases the first at once rather than dropping it.
struct BackgroundEventsHandshake<Handler> {
    private var handler: Handler?
    private var deliveredWithoutHandler = false

    /// The app hands over the system's handler. Returns the handlers to call now.
    mutating func received(_ new: Handler) -> [Handler] {
        if deliveredWithoutHandler {
            deliveredWithoutHandler = false
            return [new]
        }
        let previous = handler
        handler = new
        return previous.map { [$0] } ?? []
    }

    /// The session reports every event delivered. Returns the handlers to call now.
    mutating func eventsDelivered() -> [Handler] {
        guard let handler else {
            deliveredWithoutHandler = true
            return []
        }
        self.handler = nil
        return [handler]
    }
}

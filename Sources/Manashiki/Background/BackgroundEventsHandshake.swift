import Foundation

/// The hand-shake between the system's completion handler for a background session's events
/// (UIKit's `application(_:handleEventsForBackgroundURLSession:completionHandler:)`, SwiftUI's
/// `.backgroundTask(.urlSession)`, WatchKit's `WKURLSessionRefreshBackgroundTask`) and the
/// session's `urlSessionDidFinishEvents(forBackgroundURLSession:)`.
///
/// The handler tells the system the app is done with this wake (it may take a snapshot and
/// suspend the app), so it is called exactly once, and only when both hold:
///
/// * the session has delivered this wake's events: `urlSessionDidFinishEvents` came after the
///   handler, or came at most `trustedDeliveryAge` before it with no task event since and the
///   session has then been quiet for `settle` (the session is created at launch and may finish
///   delivering before UIKit hands the handler over; a handler kept waiting for a delivery that
///   already happened would never be called);
/// * the work those events started (files being verified and installed, transfers being
///   requeued) is done or deferred (`workStarted` / `workFinished`).
///
/// A delivery with no handler waiting is remembered only while it can belong to the handler
/// about to arrive: a task event after it, or `trustedDeliveryAge` passing, forgets it. (Events
/// delivered while the app was in the foreground used to make the next real background wake
/// call its handler at once, before that wake's installs were done.) `maxHold` bounds the wait
/// whatever happens. A second handler before the first was used releases the first at once.
///
/// Times are seconds on any clock that does not stop while the device sleeps (the glue uses
/// `Date`); `nextCheck` says when `tick` must be called.
struct BackgroundEventsHandshake<Handler> {
    /// Quiet needed after an earlier delivery before its handler is called.
    var settle: Double = 2
    /// How old a delivery with no handler may be and still count for the next handler.
    var trustedDeliveryAge: Double = 30
    /// The longest a handler is held (the system allows a wake about 30 s).
    var maxHold: Double = 25

    private struct Waiting {
        var handler: Handler
        var arrived: Double
        var delivered = false
        /// The session delivered its events just before this handler came.
        var deliveredEarlier: Bool
    }

    private var waiting: Waiting?
    private var unclaimedDelivery: Double?
    private var lastActivity = -Double.infinity
    private var busy = 0

    /// The system hands over its handler. Returns the handlers to call now.
    mutating func received(_ handler: Handler, now: Double) -> [Handler] {
        let previous = waiting.map(\.handler)
        let earlier = unclaimedDelivery.map { now - $0 <= trustedDeliveryAge } ?? false
        waiting = Waiting(handler: handler, arrived: now, deliveredEarlier: earlier)
        unclaimedDelivery = nil
        return (previous.map { [$0] } ?? []) + releasable(now)
    }

    /// A task event arrived (progress, a finished or failed task, a challenge): an earlier
    /// delivery no longer describes what is pending.
    mutating func taskActivity(now: Double) {
        lastActivity = now
        unclaimedDelivery = nil
        waiting?.deliveredEarlier = false
    }

    /// The session reports every event delivered. Returns the handlers to call now.
    mutating func eventsDelivered(now: Double) -> [Handler] {
        if waiting != nil {
            waiting?.delivered = true
        } else {
            unclaimedDelivery = now
        }
        return releasable(now)
    }

    /// Work started by an event (an install, a requeue) began.
    mutating func workStarted() { busy += 1 }

    /// Such work ended (done, failed or deferred). Returns the handlers to call now.
    mutating func workFinished(now: Double) -> [Handler] {
        busy = max(0, busy - 1)
        return releasable(now)
    }

    /// Time passed (`nextCheck`). Returns the handlers to call now.
    mutating func tick(now: Double) -> [Handler] { releasable(now) }

    /// When `tick` must be called next, if a handler waits.
    var nextCheck: Double? {
        guard let w = waiting else { return nil }
        let cap = w.arrived + maxHold
        guard w.deliveredEarlier && !w.delivered else { return cap }
        return min(cap, max(w.arrived, lastActivity) + settle)
    }

    /// Whether work is in progress.
    var isBusy: Bool { busy > 0 }

    private mutating func releasable(_ now: Double) -> [Handler] {
        guard let w = waiting else { return [] }
        let quiet = now - max(w.arrived, lastActivity) >= settle
        let delivered = w.delivered || (w.deliveredEarlier && quiet)
        guard (delivered && busy == 0) || now - w.arrived >= maxHold else { return [] }
        waiting = nil
        return [w.handler]
    }
}

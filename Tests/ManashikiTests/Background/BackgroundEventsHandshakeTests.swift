import Foundation
import Testing
@testable import Manashiki

/// When the system's completion handler for a background session's events is called: once,
/// after this wake's events and the work they started, never before.
@Suite("Background sessions: the system's completion handler")
struct BackgroundEventsHandshakeTests {
    typealias H = BackgroundEventsHandshake<Int>

    @Test("the handler runs once when the events are delivered after the app handed it over")
    func handlerThenEvents() {
        var h = H()
        #expect(h.received(1, now: 0).isEmpty)
        #expect(h.eventsDelivered(now: 1) == [1])
        #expect(h.eventsDelivered(now: 2).isEmpty)
        #expect(h.nextCheck == nil)
    }

    @Test("point 5: events delivered in the foreground do not release the handler of a later wake before its work is done")
    func foregroundDeliveryThenWake() {
        var h = H()
        #expect(h.eventsDelivered(now: 0).isEmpty) // the foreground: nobody waits
        #expect(h.received(1, now: 3600).isEmpty)  // a background wake, an hour later
        #expect(h.tick(now: 3603).isEmpty)         // the old delivery does not count, however quiet
        h.taskActivity(now: 3603.5)                // the wake's download finished…
        h.workStarted()                            // …and its install began
        #expect(h.eventsDelivered(now: 3604).isEmpty)
        #expect(h.tick(now: 3610).isEmpty)
        #expect(h.workFinished(now: 3611) == [1])
    }

    @Test("a stale delivery followed by a task event waits for the wake's own delivery even when fresh")
    func activityForgetsDelivery() {
        var h = H()
        _ = h.eventsDelivered(now: 0)
        h.taskActivity(now: 1)                     // the delivery is no longer the latest word
        #expect(h.received(1, now: 2).isEmpty)
        #expect(h.tick(now: 10).isEmpty)
        #expect(h.eventsDelivered(now: 11) == [1])
    }

    @Test("the relaunch race: events delivered just before the handler arrives release it once the session has been quiet and the work is done")
    func relaunchRace() {
        var h = H()
        h.taskActivity(now: 0)
        h.workStarted()
        #expect(h.eventsDelivered(now: 0.2).isEmpty)
        #expect(h.received(1, now: 0.5).isEmpty)
        #expect(h.nextCheck == 2.5)
        #expect(h.workFinished(now: 1).isEmpty)    // quiet for only 0.5 s
        #expect(h.tick(now: 2.5) == [1])
    }

    @Test("no work and a fresh delivery: the handler runs after the settle time, not never")
    func eventsThenHandler() {
        var h = H()
        #expect(h.eventsDelivered(now: 0).isEmpty)
        #expect(h.received(1, now: 1).isEmpty)
        #expect(h.tick(now: 2.9).isEmpty)
        #expect(h.tick(now: 3) == [1])
        // The next wake starts over: its handler waits for its own events.
        #expect(h.received(2, now: 100).isEmpty)
        #expect(h.tick(now: 110).isEmpty)
        #expect(h.eventsDelivered(now: 111) == [2])
    }

    @Test("a second handler before the first was used releases the first instead of dropping it")
    func twoHandlers() {
        var h = H()
        #expect(h.received(1, now: 0).isEmpty)
        #expect(h.received(2, now: 1) == [1])
        #expect(h.eventsDelivered(now: 2) == [2])
    }

    @Test("a handler is never held past maxHold, whatever is pending")
    func maxHold() {
        var h = H()
        h.workStarted()
        #expect(h.received(1, now: 0).isEmpty)
        #expect(h.nextCheck == 25)
        #expect(h.tick(now: 24.9).isEmpty)
        #expect(h.tick(now: 25) == [1])
        #expect(h.workFinished(now: 26).isEmpty)
    }
}

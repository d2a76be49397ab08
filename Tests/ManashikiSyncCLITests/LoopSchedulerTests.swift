import Foundation
import Testing
@testable import ManashikiSyncCLI
import ManashikiCore

@Suite("LoopScheduler")
struct LoopSchedulerTests {
    @Test("the delay is the interval plus jitter times the random draw")
    func delay() {
        let none = LoopScheduler(interval: .seconds(3600), jitter: .seconds(600), random: { 0 })
        #expect(none.nextDelay() == .seconds(3600))
        let half = LoopScheduler(interval: .seconds(3600), jitter: .seconds(600), random: { 0.5 })
        #expect(half.nextDelay() == .seconds(3900))
        let noJitter = LoopScheduler(interval: .seconds(60), random: { 0.99 })
        #expect(noJitter.nextDelay() == .seconds(60))
    }

    @Test("runs until the body says stop, waiting between runs without real sleeping")
    func runsAndWaits() async {
        let waits = Locked<[Duration]>([])
        let runs = Locked(0)
        let scheduler = LoopScheduler(interval: .seconds(10), jitter: .seconds(2), random: { 0.5 }, sleep: { d in waits.withLock { $0.append(d) } })
        let count = await scheduler.run {
            runs.withLock { $0 += 1; return $0 < 3 }
        }
        #expect(count == 3)
        #expect(waits.current == [.seconds(11), .seconds(11)])
    }

    @Test("a cancelled wait ends the loop")
    func cancelledWait() async {
        struct Stop: Error {}
        let scheduler = LoopScheduler(interval: .seconds(10), sleep: { _ in throw Stop() })
        let count = await scheduler.run { true }
        #expect(count == 1)
    }
}

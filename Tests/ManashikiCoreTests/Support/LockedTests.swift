import Foundation
import ManashikiCore
import Testing

@Suite("Locked")
struct LockedTests {
    @Test("updates from many threads at once are none of them lost")
    func concurrentUpdates() {
        let counter = Locked([Int: Int]())
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for _ in 0..<1_000 { counter.withLock { $0[thread, default: 0] += 1 } }
        }
        #expect(counter.current.count == 8)
        #expect(counter.current.values.allSatisfy { $0 == 1_000 })
    }

    @Test("withLock returns the body's result and rethrows its error")
    func resultAndError() {
        struct Boom: Error {}
        let value = Locked(41)
        #expect(value.withLock { $0 += 1; return $0 * 2 } == 84)
        #expect(throws: Boom.self) { try value.withLock { _ in throw Boom() } }
        #expect(value.current == 42)
    }
}

import Foundation
import Testing
@testable import Manashiki

@Suite("ConnectionController: the connection count follows the measured rate")
struct ConnectionControllerTests {
    /// Feeds the controller a transfer whose total rate with `n` connections is `rate(n)`
    /// bytes per nanosecond, tick by tick; returns the counts it chose.
    static func run(_ controller: inout ConnectionController, ticks: Int, rangesServed: Bool = true,
                    rangesIgnored: Bool = false, throttledAt: Int? = nil, rate: (Int) -> Double) -> [Int] {
        var time: UInt64 = 1_000_000_000, bytes: Double = 0, counts: [Int] = []
        for i in 0..<ticks {
            let target = controller.decide(.init(sample: .init(time: time, bytes: Int64(bytes)), rangesServed: rangesServed,
                                                 rangesIgnored: rangesIgnored, throttled: throttledAt == i))
            counts.append(target)
            time += ConnectionController.tick
            bytes += rate(target) * Double(ConnectionController.tick)
        }
        return counts
    }

    @Test("per-connection throttling: each step gains what it promised, so it grows 1 → 2 → 8 → 16")
    func grows() {
        var c = ConnectionController(maxConnections: 16)
        let counts = Self.run(&c, ticks: 60) { Double($0) * 0.016 } // 16 MB/s per connection
        #expect(counts.first == 1)
        #expect(counts.last == 16)
        #expect(Array(Set(counts)).sorted() == [1, 2, 8, 16])
    }

    @Test("a step that gains, but far less than its connections promised, is followed by a doubling")
    func sublinear() {
        var c = ConnectionController(maxConnections: 64)
        // 1 → 2 gains 1.9×, 2 → 8 only 2.4× (of 4× promised): then 16, which gains nothing.
        let counts = Self.run(&c, ticks: 80) { n in [1: 1.0, 2: 1.9, 8: 4.5, 16: 4.6][n, default: 4.6] * 0.01 }
        #expect(Array(Set(counts)).sorted() == [1, 2, 8, 16])
        #expect(counts.last == 8)
    }

    @Test("no step when the rest arrives within a step's windows at the rate measured: one stream to the end")
    func nearlyDone() {
        var c = ConnectionController(maxConnections: 16)
        var time: UInt64 = 1_000_000_000, bytes: Int64 = 0, counts: [Int] = []
        let total: Int64 = 256 << 20, rate: Int64 = 50 << 20 // bytes per tick: 500 MiB/s, hash-bound loopback
        while bytes < total {
            counts.append(c.decide(.init(sample: .init(time: time, bytes: bytes), rangesServed: true, rangesIgnored: false,
                                         throttled: false, remaining: total - bytes)))
            time += ConnectionController.tick
            bytes = min(total, bytes + rate)
        }
        #expect(counts.allSatisfy { $0 == 1 })
        #expect(c.phase == .settled)
        // The same rate with a far larger artifact does step up.
        var large = ConnectionController(maxConnections: 16)
        let grown = Self.run(&large, ticks: 20) { Double($0) * 0.5 }
        #expect(grown.max()! > 1)
    }

    @Test("a link one stream fills: back to one connection after one step to two, and it stays there")
    func capped() {
        var c = ConnectionController(maxConnections: 16)
        let counts = Self.run(&c, ticks: 60) { _ in 0.05 }
        #expect(counts.max() == 2)
        #expect(counts.last == 1)
        #expect(c.phase == .settled)
    }

    @Test("the link saturates at 6 connections' worth: stops at the count before the step that gained nothing")
    func saturates() {
        var c = ConnectionController(maxConnections: 32)
        let counts = Self.run(&c, ticks: 80) { min(Double($0), 6) * 0.01 }
        #expect(counts.last == 8) // 4 → 8 still gained (40 → 60), 8 → 16 did not
        #expect(!counts.contains(32))
    }

    @Test("429/503 halves the count and stops the growth; a 200 to Range keeps one stream; a fixed count is taken at once")
    func throttledIgnoredFixed() {
        var c = ConnectionController(maxConnections: 16)
        let counts = Self.run(&c, ticks: 40, throttledAt: 20) { Double($0) * 0.016 }
        #expect(counts.last == max(1, counts[19] / 2))
        var ignored = ConnectionController(maxConnections: 16)
        #expect(Self.run(&ignored, ticks: 20, rangesIgnored: true) { Double($0) } .allSatisfy { $0 == 1 })
        var waiting = ConnectionController(maxConnections: 16)
        #expect(Self.run(&waiting, ticks: 20, rangesServed: false) { Double($0) } .allSatisfy { $0 == 1 })
        var fixed = ConnectionController(maxConnections: 16, fixed: 4)
        #expect(Self.run(&fixed, ticks: 3) { _ in 1 } == [4, 4, 4])
    }

    @Test("a hash-bound transfer: more connections write faster but verify no faster, so one stream stays; the bytes written alone would have grown to 16")
    func hashBound() {
        // Each connection could receive 0.6 bytes/ns; the in-order hash takes at most 0.5.
        // One connection is hashed as it arrives (0.5); several write at 0.6 each and the rest
        // waits, as a backlog, for the hash.
        func simulate(judgingBy judge: (ByteRangeSet, Int64) -> Int64) -> [Int] {
            var controller = ConnectionController(maxConnections: 16)
            var time: UInt64 = 1_000_000_000, written: Double = 0, hashed: Double = 0, counts: [Int] = []
            for _ in 0..<60 {
                let set = ByteRangeSet([0..<Int64(written)])
                let target = controller.decide(.init(sample: .init(time: time, bytes: judge(set, Int64(hashed))), rangesServed: true,
                                                     rangesIgnored: false, throttled: false))
                counts.append(target)
                let dt = Double(ConnectionController.tick)
                written += (target == 1 ? 0.5 : 0.6 * Double(target)) * dt
                hashed = min(written, hashed + 0.5 * dt)
                time += ConnectionController.tick
            }
            return counts
        }
        let verified = simulate { TransferLedger.verifiedProgress(written: $0, hashed: $1) }
        #expect(verified.max() == 2)
        #expect(verified.last == 1)
        let byWritten = simulate { written, _ in written.count }
        #expect(byWritten.last == 16)
    }

    @Test("one stream whose connection is busy writing and hashing most of the baseline window (loopback) stays one stream: no second connection is tried")
    func consumerBound() {
        var c = ConnectionController(maxConnections: 16)
        var time: UInt64 = 1_000_000_000, bytes: Int64 = 0, busy: UInt64 = 0, counts: [Int] = []
        for _ in 0..<30 {
            counts.append(c.decide(.init(sample: .init(time: time, bytes: bytes, busy: busy), rangesServed: true, rangesIgnored: false,
                                         throttled: false)))
            time += ConnectionController.tick
            bytes += 50 << 20
            busy += ConnectionController.tick * 9 / 10
        }
        #expect(counts.allSatisfy { $0 == 1 })
        #expect(c.phase == .settled)
        // The same rate with the connection mostly waiting for the network does step up.
        var waiting = ConnectionController(maxConnections: 16)
        let grown = Self.run(&waiting, ticks: 20) { Double($0) * 0.5 }
        #expect(grown.max()! > 1)
    }
}

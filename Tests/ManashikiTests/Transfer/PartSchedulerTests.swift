import Foundation
import Testing
@testable import Manashiki

@Suite("PartScheduler: which bytes each connection fetches")
struct PartSchedulerTests {
    static let mib: Int64 = 1 << 20

    @Test("one connection gets the whole artifact as one part, then nothing")
    func singleStream() {
        let s = PartScheduler(total: 100 * Self.mib, partSize: 8 * Self.mib)
        let part = s.next(splitting: false)
        #expect(part?.start == 0 && part?.end == 100 * Self.mib)
        #expect(s.next(splitting: false) == nil)
        s.wrote(0..<(100 * Self.mib), part: part!.id)
        s.finish(part!.id)
        #expect(s.isComplete)
    }

    @Test("parts that may run in parallel are the lowest free grid parts; no byte is assigned twice")
    func splitting() {
        let total = 40 * Self.mib + 123
        let s = PartScheduler(total: total, partSize: 8 * Self.mib)
        var parts: [PartScheduler.Part] = []
        while let p = s.next(splitting: true) { parts.append(p) }
        #expect(parts.map(\.start) == [0, 8, 16, 24, 32, 40].map { $0 * Self.mib })
        #expect(parts.map(\.end) == [8, 16, 24, 32, 40].map { $0 * Self.mib } + [total])
        var covered = ByteRangeSet()
        for p in parts {
            #expect(covered.coveredEnd(from: p.start) == nil)
            covered.insert(p.start..<p.end!)
        }
        #expect(covered.ranges == [0..<total])
        // A part given up mid-way: its unwritten rest is the next part handed out; settled on
        // one connection, everything missing from there goes as one part.
        s.wrote((8 * Self.mib)..<(10 * Self.mib), part: parts[1].id)
        s.release(parts[1].id)
        s.release(parts[5].id)
        let again = s.next(splitting: false)
        #expect(again?.start == 10 * Self.mib && again?.end == 16 * Self.mib)
        #expect(s.next(splitting: false)?.start == 40 * Self.mib)
    }

    @Test("a connection running alone takes as many grid parts as are written (1 to 8); once others run, one grid part")
    func aloneGrows() {
        let total = 200 * Self.mib + 5
        let s = PartScheduler(total: total, partSize: 8 * Self.mib)
        var ends: [Int64] = []
        while let p = s.next(splitting: true, alone: true) {
            ends.append(p.end!)
            s.wrote(p.start..<p.end!, part: p.id)
            s.finish(p.id)
            if p.end! >= 128 * Self.mib { break }
        }
        #expect(ends == [8, 16, 32, 64, 128].map { $0 * Self.mib })
        let capped = s.next(splitting: true, alone: true)!
        #expect(capped.start == 128 * Self.mib && capped.end == 192 * Self.mib) // at most 8 parts
        #expect(s.next(splitting: true, alone: true)?.end == total) // and never past the gap
        let shared = PartScheduler(total: total, written: ByteRangeSet([0..<(64 * Self.mib)]), partSize: 8 * Self.mib)
        #expect(shared.next(splitting: true, alone: false)?.end == 72 * Self.mib)
        // A gap that starts off the grid (a part given up mid-way) ends on the grid.
        let resumed = PartScheduler(total: total, written: ByteRangeSet([0..<(20 * Self.mib + 7)]), partSize: 8 * Self.mib)
        #expect(resumed.next(splitting: true, alone: true)?.end == 40 * Self.mib)
    }

    @Test("after a resume the missing ranges are handed out, parts already on disk are not")
    func resumeGaps() {
        let total = 32 * Self.mib
        let kept = ByteRangeSet([0..<(4 * Self.mib), (16 * Self.mib)..<(24 * Self.mib)])
        let s = PartScheduler(total: total, written: kept, partSize: 8 * Self.mib)
        let a = s.next(splitting: false)!
        #expect(a.start == 4 * Self.mib && a.end == 16 * Self.mib)
        let b = s.next(splitting: false)!
        #expect(b.start == 24 * Self.mib && b.end == total)
        #expect(s.next(splitting: false) == nil)
        #expect(!s.isComplete)
    }

    @Test("a part given up returns its unwritten bytes; restart hands the whole artifact to the last part")
    func releaseAndRestart() {
        let s = PartScheduler(total: 10 * Self.mib, partSize: 4 * Self.mib)
        let a = s.next(splitting: false)!
        s.wrote(0..<Self.mib, part: a.id)
        s.release(a.id)
        let b = s.next(splitting: false)!
        #expect(b.start == Self.mib && b.end == 10 * Self.mib)
        let whole = s.restart(from: b.id)
        #expect(whole?.start == 0 && whole?.end == 10 * Self.mib)
        #expect(s.written.isEmpty)
    }

    @Test("an artifact of unknown size is one open-ended part, complete when its stream ends")
    func unknownSize() {
        let s = PartScheduler(total: nil)
        let p = s.next(splitting: true)!
        #expect(p.end == nil)
        #expect(s.next(splitting: true) == nil)
        s.wrote(0..<5000, part: p.id)
        s.finish(p.id, endReached: true)
        #expect(s.isComplete)
    }
}

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
        let verified = simulate { InOrderHasher.progress(written: $0, hashed: $1) }
        #expect(verified.max() == 2)
        #expect(verified.last == 1)
        let byWritten = simulate { written, _ in written.count }
        #expect(byWritten.last == 16)
    }
}

@Suite("PartialSidecar formats")
struct PartialSidecarFormatTests {
    static let sha = String(repeating: "ab", count: 32)

    @Test("format 2 round-trips its parts; format 1 is still read (in order, no parts)")
    func versions() throws {
        let v2 = PartialSidecar(modelId: "m", sha256: Self.sha, size: 100, version: "1", bytesKnownGood: 10, parts: [20..<30, 50..<60])
        let decoded = try PartialSidecar.decode(v2.encoded()).get()
        #expect(decoded.formatVersion == 2 && decoded.partRanges == [20..<30, 50..<60] && decoded.bytesKnownGood == 10)
        let v1 = Data(#"{"formatVersion": 1, "modelId": "m", "sha256": "\#(Self.sha)", "size": 100, "bytesKnownGood": 40}"#.utf8)
        let old = try PartialSidecar.decode(v1).get()
        #expect(old.parts == nil && old.bytesKnownGood == 40)
    }

    @Test("a newer format, or parts that overlap, run past the size or precede the prefix, are refused", arguments: [
        #"{"formatVersion": 3, "modelId": "m", "sha256": "S", "size": 100, "bytesKnownGood": 0}"#,
        #"{"formatVersion": 2, "modelId": "m", "sha256": "S", "size": 100, "bytesKnownGood": 0, "parts": [[10, 30], [20, 40]]}"#,
        #"{"formatVersion": 2, "modelId": "m", "sha256": "S", "size": 100, "bytesKnownGood": 0, "parts": [[90, 101]]}"#,
        #"{"formatVersion": 2, "modelId": "m", "sha256": "S", "size": 100, "bytesKnownGood": 50, "parts": [[10, 20]]}"#,
        #"{"formatVersion": 2, "modelId": "m", "sha256": "S", "size": 100, "bytesKnownGood": 0, "parts": [[10]]}"#,
    ])
    func refused(_ text: String) {
        let data = Data(text.replacingOccurrences(of: "\"S\"", with: "\"\(Self.sha)\"").utf8)
        guard case .failure = PartialSidecar.decode(data) else {
            Issue.record("accepted: \(text)")
            return
        }
    }
}

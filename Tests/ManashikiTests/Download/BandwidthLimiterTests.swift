import Foundation
import ManashikiTestSupport
import Testing
import Manashiki
import ManashikiCore
import ManashikiRegistry

/// The shared bandwidth limiter on an injected clock: no test sleeps or reads the wall clock.
@Suite("BandwidthLimiter (injected clock)")
struct BandwidthLimiterTests {
    /// A clock that only moves when told to; `sleep` records the wait and (optionally) moves it.
    final class ManualClock: Sendable {
        let time = Locked<UInt64>(1_000_000_000)
        let sleeps = Locked<[UInt64]>([])
        let advancesOnSleep: Bool
        let failSleeps: Bool

        init(advancesOnSleep: Bool = true, failSleeps: Bool = false) {
            self.advancesOnSleep = advancesOnSleep
            self.failSleeps = failSleeps
        }

        var clock: BandwidthLimiter.Clock {
            BandwidthLimiter.Clock(now: { [time] in time.current }, sleep: { [self] ns in
                sleeps.withLock { $0.append(ns) }
                if failSleeps { throw CancellationError() }
                if advancesOnSleep { time.withLock { $0 += ns } }
            })
        }

        func advance(seconds: Double) { time.withLock { $0 += UInt64(seconds * 1e9) } }
        var seconds: Double { Double(time.current - 1_000_000_000) / 1e9 }
    }

    static let mib = 1 << 20

    @Test("one consumer is held to the rate: 6.25 MiB at 1 MiB/s take 6.25 s less the initial burst")
    func sustainedRate() async throws {
        let manual = ManualClock()
        let limiter = BandwidthLimiter(bytesPerSecond: Int64(Self.mib), burstBytes: 64 << 10, clock: manual.clock)
        for _ in 0..<100 { try await limiter.acquire(64 << 10) }
        let expected = (6.25 * Double(Self.mib) - Double(64 << 10)) / Double(Self.mib)
        #expect(abs(manual.seconds - expected) < 0.001, "took \(manual.seconds) s of clock time, expected \(expected)")
    }

    @Test("concurrent consumers share ONE limit: together they get the rate, each an equal share", arguments: [1, 4, 16])
    func sharedBetweenConsumers(_ consumers: Int) {
        // Event-driven simulation on virtual time: the consumer whose wait ends first takes its
        // next chunk; what each reservation makes it wait is the limiter's answer.
        let manual = ManualClock()
        let rate = 10 * Self.mib
        let limiter = BandwidthLimiter(bytesPerSecond: Int64(rate), burstBytes: Int64(Self.mib / 10), clock: manual.clock)
        var ready = [UInt64](repeating: manual.time.current, count: consumers)
        var taken = [Int](repeating: 0, count: consumers)
        let chunk = Self.mib, total = 200 * Self.mib
        var granted = 0
        while granted < total {
            let next = ready.indices.min { ready[$0] < ready[$1] }!
            manual.time.withLock { $0 = max($0, ready[next]) }
            let wait = limiter.reserve(chunk)
            ready[next] = manual.time.current + wait
            taken[next] += chunk
            granted += chunk
        }
        let finished = Double(ready.max()! - 1_000_000_000) / 1e9
        let achieved = Double(total) / finished
        #expect(abs(achieved - Double(rate)) / Double(rate) < 0.005, "\(consumers) consumers: \(achieved / Double(Self.mib)) MiB/s for a 10 MiB/s limit")
        let share = Double(total) / Double(consumers)
        #expect(taken.allSatisfy { abs(Double($0) - share) <= Double(chunk) }, "shares: \(taken)")
    }

    @Test("after an idle period only the burst passes at once, not the idle time's worth")
    func burstIsCapped() async throws {
        let manual = ManualClock()
        let limiter = BandwidthLimiter(bytesPerSecond: Int64(Self.mib), burstBytes: 256 << 10, clock: manual.clock)
        manual.advance(seconds: 60)
        #expect(limiter.reserve(256 << 10) == 0)
        let wait = limiter.reserve(Self.mib)
        #expect(wait == 1_000_000_000, "a MiB after the burst waits one second, not \(wait) ns")
    }

    @Test("a chunk larger than the bucket passes and the next one waits until the debt is repaid")
    func largeChunkGoesIntoDebt() {
        let manual = ManualClock()
        let limiter = BandwidthLimiter(bytesPerSecond: Int64(Self.mib), burstBytes: Int64(Self.mib), clock: manual.clock)
        #expect(limiter.reserve(Self.mib) == 0)
        #expect(limiter.reserve(4 * Self.mib) == 4_000_000_000)
        manual.advance(seconds: 4)
        #expect(limiter.reserve(Self.mib) == 1_000_000_000)
    }

    @Test("a cancelled wait gives its bytes back and rethrows")
    func cancellationRefunds() async {
        let manual = ManualClock(failSleeps: true)
        let limiter = BandwidthLimiter(bytesPerSecond: Int64(Self.mib), burstBytes: 64 << 10, clock: manual.clock)
        _ = limiter.reserve(64 << 10) // the burst is spent
        await #expect(throws: CancellationError.self) { try await limiter.acquire(Self.mib) }
        #expect(manual.sleeps.current == [1_000_000_000])
        #expect(limiter.reserve(Self.mib) == 1_000_000_000, "the cancelled MiB must not be owed")
    }

    @Test("the default burst is a tenth of a second's worth, at least 64 KiB; a rate below 1 is 1")
    func defaults() {
        #expect(BandwidthLimiter(bytesPerSecond: 100 << 20).burstBytes == 10 << 20)
        #expect(BandwidthLimiter(bytesPerSecond: 1 << 10).burstBytes == 64 << 10)
        #expect(BandwidthLimiter(bytesPerSecond: 0).bytesPerSecond == 1)
        let a = BandwidthLimiter(bytesPerSecond: 1000), b = BandwidthLimiter(bytesPerSecond: 1000)
        #expect(a == a && a != b, "two limiters are two budgets")
    }

    @Test("two concurrent downloads through one limiter draw from one budget (development registry)")
    func downloadsShareTheLimiter() async throws {
        var catalog = RegistryCatalog()
        let key = "mk_pub_acme_AbCdEfGhIjKlMnOpQrSt01"
        catalog.keys = [RegistryKey(secret: key, organization: "acme")]
        let size = 512 << 10
        catalog.add(model: RegistryModel(modelId: "left", version: "1.0.0", artifact: .generated(size: size, seed: 1), platforms: ["linux"]))
        catalog.add(model: RegistryModel(modelId: "right", version: "1.0.0", artifact: .generated(size: size, seed: 2), platforms: ["linux"]))
        let registry = try DevelopmentRegistry.start(catalog: catalog)
        defer { registry.stop() }
        let storage = ScratchDirectory()
        let client = try ManashikiClient(apiKey: key, baseURL: registry.apiBaseURL, storageDirectory: storage.url)

        // A frozen clock whose sleeps return at once: every grant adds to one debt, so the
        // longest wait asked for is (all bytes − burst) ÷ rate when the budget is shared, and
        // only half of that if each download had its own.
        let manual = ManualClock(advancesOnSleep: false)
        let rate = 64 << 10, burst = 64 << 10
        var options = DownloadOptions()
        options.rateLimiter = BandwidthLimiter(bytesPerSecond: Int64(rate), burstBytes: Int64(burst), clock: manual.clock)
        async let left = client.downloadModel("left", session: nil, expecting: nil, options: options)
        async let right = client.downloadModel("right", session: nil, expecting: nil, options: options)
        let models = try await [left, right]
        #expect(models.allSatisfy { $0.verified })
        #expect(try Data(contentsOf: models[0].localURL) == registry.artifactBytes(modelId: "left"))
        #expect(try Data(contentsOf: models[1].localURL) == registry.artifactBytes(modelId: "right"))
        let longest = Double(manual.sleeps.current.max() ?? 0) / 1e9
        let shared = Double(2 * size - burst) / Double(rate)
        #expect(abs(longest - shared) < 0.001, "longest wait \(longest) s; one shared budget means \(shared) s")
    }
}

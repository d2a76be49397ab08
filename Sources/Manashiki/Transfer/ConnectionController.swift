/// How many connections a parallel transfer runs, decided from what the transfer measures:
/// never a fixed count.
///
/// The rate it measures is of **verified progress**, not of bytes received: the bytes written
/// less the in-order hash's backlog (`TransferLedger.verifiedProgress`). Where the hash is the
/// bottleneck (loopback, a fast LAN, a slow CPU) more connections write faster but verify no
/// faster, so they show no gain and the transfer keeps one stream, hashed as it arrives.
///
/// 1. One connection, whose first request asks for a `Range`. A 200 (the host ignores ranges)
///    settles on one stream.
/// 2. Once a 206 shows ranges are served, the rate of that one stream is measured over
///    `measureWindow` (the baseline). A stream whose writing and hashing took at least
///    `consumerBound` of a core over that window (CPU time, so a loaded machine's waits do not
///    count) is limited by this machine, not the link (loopback, a fast LAN): it stays one
///    stream, with no second connection even tried.
/// 3. Then 2 connections, then more each step (up to `maxConnections`): after `settleWindow`
///    for the new ones to get going, the total rate is measured again; a step is kept only when
///    it raised the rate by at least `minimumGain` (20 %). A step that gained almost as much as
///    its connections promised (`linearEfficiency`: per-connection throttling, as CDNs do) is
///    followed by one four times as large, else twice. The first step that does not gain goes back to the count before it
///    and stays there: a link that one stream already fills keeps one stream (beside a moment
///    with two: on a capped link every added connection costs, 5–15 % for the second in the
///    bench's measurements).
/// 4. No step is taken when, at the rate measured, the rest of the artifact arrives within a
///    step's windows: a step could not pay for itself (a small or fast transfer stays one stream,
///    whose connection then asks for everything left in one request).
/// 5. A 429 or 503 from the storage host halves the count and stops the growth.
///
/// Counts shrink at part boundaries (a connection takes no new part when there are too many),
/// never by cutting a request.
struct ConnectionController: Sendable {
    /// Nanoseconds between decisions.
    static let tick: UInt64 = 100_000_000
    /// Nanoseconds new connections get before the rate is measured.
    static let settleWindow: UInt64 = 200_000_000
    /// Nanoseconds over which a rate is measured.
    static let measureWindow: UInt64 = 400_000_000
    /// The least rate increase (×) that keeps a step.
    static let minimumGain = 1.2
    /// The count of the first step after one stream.
    static let firstStep = 2
    /// The share of the ideal gain (`n` connections after `m`: `n / m`×) from which a step
    /// counts as scaling linearly, so the next one is four times as large.
    static let linearEfficiency = 0.8

    /// The share of a core, over the baseline window, from which one stream's writing and
    /// hashing show that this machine, not the link, is the limit.
    static let consumerBound = 0.6

    /// A point of the transfer: when, its verified progress by then
    /// (`TransferLedger.verifiedProgress`: written, less what waits to be hashed), and the
    /// CPU nanoseconds its connections had spent writing and hashing.
    struct Sample: Sendable, Equatable {
        var time: UInt64
        var bytes: Int64
        var busy: UInt64 = 0
    }

    enum Phase: Sendable, Equatable {
        case probing
        case baseline(Sample)
        case settling(until: UInt64, previousRate: Double, previousCount: Int)
        case measuring(Sample, previousRate: Double, previousCount: Int)
        case settled
    }

    let maxConnections: Int
    /// A fixed count once ranges are served (tests and benchmarks), instead of adapting.
    let fixed: Int?
    private(set) var target = 1
    private(set) var phase = Phase.probing

    init(maxConnections: Int, fixed: Int? = nil) {
        self.maxConnections = max(1, maxConnections)
        self.fixed = fixed.map { max(1, $0) }
    }

    /// What the transfer looks like at one tick.
    struct Observation: Sendable {
        var sample: Sample
        /// A 206 answered a `Range` request.
        var rangesServed: Bool
        /// A 200 answered one: the host ignores ranges.
        var rangesIgnored: Bool
        /// The storage host answered 429 or 503 since the last tick.
        var throttled: Bool
        /// Bytes still to fetch (nil: unknown).
        var remaining: Int64? = nil
    }

    /// The connection count for now.
    mutating func decide(_ o: Observation) -> Int {
        if o.rangesIgnored { return settle(1) }
        if o.throttled && phase != .probing { return settle(max(1, target / 2)) }
        switch phase {
        case .probing:
            guard o.rangesServed else { return target }
            if let fixed { return settle(min(fixed, maxConnections)) }
            phase = .baseline(o.sample)
        case .baseline(let start):
            guard o.sample.time - start.time >= Self.measureWindow else { return target }
            let busy = Double(o.sample.busy &- start.busy) / Double(o.sample.time - start.time)
            guard busy < Self.consumerBound else { return settle(1) }
            let rate = Self.rate(start, o.sample)
            guard Self.pays(rate: rate, remaining: o.remaining) else { return settle(1) }
            step(from: 1, rate: rate, now: o.sample.time, to: Self.firstStep)
        case .settling(let until, let rate, let count):
            if o.sample.time >= until { phase = .measuring(o.sample, previousRate: rate, previousCount: count) }
        case .measuring(let start, let previous, let count):
            guard o.sample.time - start.time >= Self.measureWindow else { return target }
            let rate = Self.rate(start, o.sample)
            guard rate >= previous * Self.minimumGain else { return settle(count) }
            guard target < maxConnections, Self.pays(rate: rate, remaining: o.remaining) else { return settle(target) }
            let promised = Double(target) / Double(count), gained = rate / previous
            let factor = (gained - 1) >= (promised - 1) * Self.linearEfficiency ? 4 : 2
            step(from: target, rate: rate, now: o.sample.time, to: target * factor)
        case .settled:
            break
        }
        return target
    }

    private mutating func step(from count: Int, rate: Double, now: UInt64, to next: Int) {
        let next = min(maxConnections, next)
        guard next > count else {
            phase = .settled
            return
        }
        target = next
        phase = .settling(until: now + Self.settleWindow, previousRate: rate, previousCount: count)
    }

    private mutating func settle(_ count: Int) -> Int {
        target = count
        phase = .settled
        return target
    }

    /// Whether a step can pay for itself: at `rate` (bytes per nanosecond) the `remaining`
    /// bytes take longer than the step's windows.
    private static func pays(rate: Double, remaining: Int64?) -> Bool {
        guard let remaining, rate > 0 else { return true }
        return Double(remaining) / rate > Double(settleWindow + measureWindow)
    }

    private static func rate(_ a: Sample, _ b: Sample) -> Double {
        guard b.time > a.time else { return 0 }
        return Double(b.bytes - a.bytes) / Double(b.time - a.time)
    }
}

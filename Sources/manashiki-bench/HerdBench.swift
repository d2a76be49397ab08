#if os(Linux)
import Foundation
import ManashikiCore
import ManashikiRegistry
import ManashikiSyncCLI

/// Issue #17's herd: many agents at once against one development registry on loopback, as a
/// fleet's timers without jitter would start them. Three waves of `agents` real agent
/// processes (`_agent` runs the `manashiki-sync` command line in the bench's binary): a fresh
/// install, a no-op, and a no-op during a 429 storm: every agent's first catalog request gets
/// `429` with `Retry-After` naming one instant (an HTTP-date `stormSeconds` ahead), the worst
/// case for a synchronized second wave. Each agent has its own store and its own API key, so
/// the registry's request log tells the agents apart, and shows when each one came back
/// compared with when it would have without the agent's random spread (its own 429's arrival
/// plus the whole seconds to the named instant, as `RetryAfter` computes them).
struct HerdBench {
    static let suite = BenchSuite(name: "herd", summary: "200 agents at once on one registry: fresh, no-op, then a 429 storm (retry spread)") {
        try HerdBench(context: $0).run()
    }

    let context: BenchContext
    /// Agents per wave.
    var agents = 200
    /// How far ahead the storm's `Retry-After` date is (longer than the herd takes to start on a
    /// loaded machine, so every agent is told the same instant).
    var stormSeconds = 12
    /// Width of the histogram's bars.
    var bucketMilliseconds = 250

    /// One agent's run.
    struct AgentRun {
        var status: Int32
        var seconds: Double
    }

    /// One wave: every agent's run and the requests the registry received meanwhile.
    struct Wave {
        var runs: [AgentRun]
        var requests: [LoggedRequest]
        var seconds: Double

        var succeeded: Double { Double(runs.filter { $0.status == 0 }.count) / Double(max(1, runs.count)) }
        var requestsPerRun: Double { Double(requests.count) / Double(max(1, runs.count)) }
    }

    static func key(_ i: Int) -> String { String(format: "mk_pub_herd_Agent%04dAbCdEfGhIjKlMn", i) }

    func run() throws {
        let dir = try context.freshDirectory(context.disk, "herd")
        defer { try? FileManager.default.removeItem(at: dir) }
        var catalog = RegistryCatalog()
        catalog.keys = (0..<agents).map { RegistryKey(secret: Self.key($0)) }
        catalog.add(model: RegistryModel(modelId: "herd-model", version: "1.0.0", artifact: .generated(size: 4096, seed: 17), platforms: ["linux"]))
        let registry = try DevelopmentRegistry.start(catalog: catalog)
        defer { registry.stop() }
        let manifests = try (0..<agents).map { try writeAgent(dir, index: $0, registry: registry) }

        log("herd: \(agents) agents installing at once")
        let fresh = try wave(manifests, registry)
        guard fresh.succeeded == 1 else { throw BenchError("the fresh herd did not fully succeed (\(fresh.succeeded * 100) %)") }
        log("herd: \(agents) no-op agents at once")
        let noop = try wave(manifests, registry)
        // The HTTP-date has whole seconds; the named instant on the monotonic clock, for the analysis.
        let named = (Date().timeIntervalSince1970 + Double(stormSeconds)).rounded(.down)
        let namedUptime = DispatchTime.now().uptimeNanoseconds + UInt64((named - Date().timeIntervalSince1970) * 1e9)
        log("herd: \(agents) no-op agents in a 429 storm (Retry-After: an HTTP-date \(stormSeconds) s ahead)")
        registry.setFault(.rateLimited(retryAfter: .date(Date(timeIntervalSince1970: named)), count: agents), endpoint: .catalog)
        let storm = try wave(manifests, registry)
        registry.clearFaults()
        report(fresh: fresh, noop: noop, storm: storm, namedUptime: namedUptime)
    }

    /// Writes agent `index`'s directory: its key file and manifest (its own store).
    func writeAgent(_ dir: URL, index: Int, registry: DevelopmentRegistry) throws -> (manifest: URL, key: URL) {
        let agent = dir.appendingPathComponent(String(format: "agent-%04d", index))
        try FileManager.default.createDirectory(at: agent, withIntermediateDirectories: true)
        let key = agent.appendingPathComponent("api-key")
        try Self.key(index).write(to: key, atomically: true, encoding: .utf8)
        let manifest = agent.appendingPathComponent("manashiki.json")
        try """
        {"schemaVersion": 1,
         "registry": {"baseURL": "\(registry.apiBaseURL.absoluteString)"},
         "store": {"directory": "store", "concurrency": 1},
         "policies": {"checkCompatibility": false, "retry": {"maxAttempts": 4, "maxRetryAfterSeconds": 30}},
         "models": [{"id": "herd-model"}]}
        """.write(to: manifest, atomically: true, encoding: .utf8)
        return (manifest, key)
    }

    /// Starts every agent at the same moment (one thread each, released together) and waits
    /// for all of them. Bounded: an agent makes at most 4 attempts and honours at most 30 s
    /// of Retry-After.
    func wave(_ agents: [(manifest: URL, key: URL)], _ registry: DevelopmentRegistry) throws -> Wave {
        registry.clearRequestLog()
        let results = Locked<[AgentRun?]>(Array(repeating: nil, count: agents.count))
        let gate = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for (i, agent) in agents.enumerated() {
            done.enter()
            let thread = Thread { [me = context.me] in
                gate.wait()
                let argv = [me, "_agent", "sync", "--quiet", "--progress", "never", "--manifest", agent.manifest.path, "--api-key-file", agent.key.path]
                let r = try? Child.run(argv)
                results.withLock { $0[i] = AgentRun(status: r?.status ?? -1, seconds: r?.seconds ?? 0) }
                done.leave()
            }
            thread.stackSize = 1 << 18
            thread.start()
        }
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in agents { gate.signal() }
        done.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return Wave(runs: results.withLock { $0 }.map { $0 ?? AgentRun(status: -1, seconds: 0) }, requests: registry.requestLog(), seconds: seconds)
    }

    /// The most requests in any window of `seconds` (a sliding window over arrival times), per second.
    static func peakRate(_ times: [UInt64], window seconds: Double = 1) -> Double {
        let sorted = times.sorted()
        let width = UInt64(seconds * 1e9)
        var best = 0, lo = 0
        for hi in sorted.indices {
            while sorted[hi] - sorted[lo] >= width { lo += 1 }
            best = max(best, hi - lo + 1)
        }
        return Double(best) / seconds
    }

    /// Each agent's catalog requests, oldest first, by API key.
    static func catalogRequestsByAgent(_ requests: [LoggedRequest]) -> [[UInt64]] {
        var byKey: [String: [UInt64]] = [:]
        for r in requests where r.origin == .api && r.path == "/api/models" {
            byKey[r.header("X-API-Key") ?? "?", default: []].append(r.receivedAt)
        }
        return byKey.values.map { $0.sorted() }
    }

    func report(fresh: Wave, noop: Wave, storm: Wave, namedUptime: UInt64) {
        let agents = Double(self.agents)
        // The storm: each agent's first catalog request got the 429; the next ones are retries.
        let perAgent = Self.catalogRequestsByAgent(storm.requests)
        let firsts = perAgent.compactMap(\.first)
        let retries = perAgent.compactMap { $0.count >= 2 ? $0[1] : nil }
        // Without the spread: the agent's 429 plus the whole seconds to the named instant.
        let unspread = firsts.map { f -> UInt64 in
            let seconds = namedUptime > f ? ((namedUptime - f) + 999_999_999) / 1_000_000_000 : 0
            return f + seconds * 1_000_000_000
        }
        let early = retries.filter { $0 + 50_000_000 < namedUptime }.count // 50 ms for the clocks' rounding
        let origin = firsts.min() ?? 0
        let bucket = UInt64(bucketMilliseconds) * 1_000_000
        func histogram(_ times: [UInt64]) -> [Int: Int] {
            var h: [Int: Int] = [:]
            for t in times where t >= origin { h[Int((t - origin) / bucket), default: 0] += 1 }
            return h
        }
        let spread = histogram(retries), exact = histogram(unspread)
        let retryPeak = Self.peakRate(retries), unspreadPeak = Self.peakRate(unspread)
        let startSpread = Double((firsts.max() ?? 0) - origin) / 1e9
        func share(_ h: [Int: Int], _ n: Int) -> Double { Double(h.values.max() ?? 0) / Double(max(1, n)) * 100 }

        printTable("Herd: \(self.agents) agents started at once against one development registry (loopback)", [
            Figure(name: "fresh install herd: runs that succeeded", value: fresh.succeeded * 100, unit: "%", target: 100, comparison: .atLeast,
                   note: String(format: "all done in %.1f s", fresh.seconds)),
            Figure(name: "fresh install herd: requests per run", value: fresh.requestsPerRun, unit: "requests", target: nil),
            Figure(name: "fresh install herd: registry's peak requests per second (1 s window)",
                   value: Self.peakRate(fresh.requests.map(\.receivedAt)), unit: "req/s", target: nil),
            Figure(name: "no-op herd: runs that succeeded", value: noop.succeeded * 100, unit: "%", target: 100, comparison: .atLeast,
                   note: String(format: "all done in %.1f s", noop.seconds)),
            Figure(name: "no-op herd: requests per run", value: noop.requestsPerRun, unit: "requests", target: 1),
            Figure(name: "no-op herd: registry's peak requests per second (1 s window)", value: Self.peakRate(noop.requests.map(\.receivedAt)),
                   unit: "req/s", target: nil),
            Figure(name: "429 storm: runs that succeeded", value: storm.succeeded * 100, unit: "%", target: 100, comparison: .atLeast,
                   note: String(format: "all done in %.1f s; the 429s arrived over %.1f s", storm.seconds, startSpread)),
            Figure(name: "429 storm: requests per run", value: storm.requestsPerRun, unit: "requests", target: 2,
                   note: "\(retries.count) retries by \(perAgent.count) agents"),
            Figure(name: "429 storm: retries before the instant the registry named", value: Double(early), unit: "retries", target: 0),
            Figure(name: "429 storm: peak rate of the retries ÷ what it would be without the spread (1 s window)",
                   value: retryPeak / max(unspreadPeak, 1), unit: "×", target: 0.5,
                   note: String(format: "%.0f vs %.0f req/s", retryPeak, unspreadPeak)),
            Figure(name: "429 storm: busiest \(bucketMilliseconds) ms, share of all retries", value: share(spread, retries.count), unit: "%", target: 25,
                   note: String(format: "without the spread: %.0f %%", share(exact, unspread.count))),
        ])
        print("\n#### 429 storm: when the retries reached the registry (from the first 429; the registry named \(String(format: "%.2f", Double(namedUptime - origin) / 1e9)) s)\n")
        print("| from | retries | without the spread | |")
        print("|---|---|---|---|")
        let keys = Array(spread.keys) + Array(exact.keys)
        for index in (keys.min() ?? 0)...(keys.max() ?? 0) {
            let n = spread[index] ?? 0
            let from = Double(index * bucketMilliseconds) / 1000
            print(String(format: "| %.2f s | %d | %d | %@ |", from, n, exact[index] ?? 0,
                         String(repeating: "█", count: Int((Double(n) / agents * 50).rounded(.up)))))
        }
        fflush(nil)
    }

    /// `_agent ARGS…`: the `manashiki-sync` command line itself, in the bench's binary.
    static func agent(_ args: [String]) async -> Never {
        exit(await CommandLineTool(console: .standard(), handlesSignals: false).run(args).rawValue)
    }
}
#endif

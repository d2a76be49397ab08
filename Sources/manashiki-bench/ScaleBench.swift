#if os(Linux)
import Foundation
import Manashiki
import ManashikiSync
import ManashikiCore

/// Issue #8's figures besides the fleet: memory of a big sync, the no-op sync, `verify` and
/// the planner, under the same rules (child processes, alternating peers, synced between runs).
struct ScaleBench {
    static let bigSuite = BenchSuite(name: "big", summary: "peak memory of a 4 GiB single-artifact sync") { try ScaleBench(context: $0).bigSync() }
    static let noopSuite = BenchSuite(name: "noop", summary: "no-op sync of 2,000 installed models: time, API requests, bytes re-hashed") { try ScaleBench(context: $0).noopSync() }
    static let verifySuite = BenchSuite(name: "verify", summary: "`verify` of 8 GiB vs `sha256sum` and `openssl dgst -sha256`") { try ScaleBench(context: $0).verify() }
    static let plannerSuite = BenchSuite(name: "planner", summary: "plan time and state-file load time at 10,000 entries (in process)") { try ScaleBench(context: $0).planner() }

    let context: BenchContext
    var noopModels = 2000
    var verifyGiB = 8
    var bigGiB = 4
    var plannerEntries = 10_000

    /// Generated artifacts for these suites are cached on disk, across runs of the bench.
    private var source: URL { context.disk.appendingPathComponent("source") }

    // MARK: One big artifact

    func bigSync() throws {
        let dir = try context.freshDirectory(context.disk, "big")
        let servers = try BenchServers(source: source, models: [("big", bigGiB << 30, 77)])
        defer { servers.stop() }
        let store = dir.appendingPathComponent("store")
        let manifest = try servers.writeManifest(dir, store: store, ids: ["big"], concurrency: 1)
        log("single \(bigGiB) GiB artifact sync")
        context.flush.run()
        let o = try Child.run([context.me, "_sync", manifest.path] + servers.rewrite, environment: ["MANASHIKI_API_KEY": BenchServers.key])
        guard o.status == 0 else { throw BenchError("the big sync failed: \(o.output)") }
        try? FileManager.default.removeItem(at: dir)
        printTable("Memory of a \(bigGiB) GiB single-artifact sync (one run, on disk)", [
            Figure(name: "peak RSS growth during a \(bigGiB) GiB single-artifact sync", value: Double(field("growthKiB", in: o.output) ?? 0) / 1024,
                   unit: "MiB", target: 64, note: String(format: "%.1f s, %.1f CPU s, peak RSS %.0f MiB", o.seconds, o.cpuSeconds, Double(o.maxRSSKiB) / 1024)),
        ])
    }

    // MARK: No-op sync of many models

    func noopSync() throws {
        let dir = try context.freshDirectory(context.disk, "noop")
        let ids = (0..<noopModels).map { String(format: "tiny-%05d", $0) }
        let servers = try BenchServers(source: source, models: ids.enumerated().map { ($1, 1024, UInt64($0)) }, nginx: false)
        defer { servers.stop() }
        let store = dir.appendingPathComponent("store")
        let manifest = try servers.writeManifest(dir, store: store, ids: ids, concurrency: 8)
        let env = ["MANASHIKI_API_KEY": BenchServers.key]
        log("installing \(noopModels) models for the no-op figure")
        let first = try Child.run([context.me, "_sync", manifest.path], environment: env)
        guard first.status == 0, first.output.contains("outcome=changed") else { throw BenchError("the first sync failed: \(first.output)") }
        let registry = servers.registry
        let s = try Alternation(context: context).run([
            Peer(name: "no-op `sync` of \(noopModels) models", argv: [context.me, "_sync", manifest.path], environment: env,
                 reset: { registry.clearRequestLog() },
                 check: { r in
                     guard r.status == 0, r.output.contains("outcome=inSync") else { throw BenchError("the no-op sync was not in sync") }
                     return ["requests": Double(registry.requestLog().count), "hashed": Double(field("hashed", in: r.output) ?? -1)]
                 }),
        ])
        try? FileManager.default.removeItem(at: dir)
        printPeers("No-op sync of \(noopModels) installed models (page cache flushed before each run)", s)
        printTable("No-op figures", [
            Figure(name: "no-op sync of \(noopModels) installed models: wall time (whole process)", value: median(s[0].wall), unit: "s", target: 0.5),
            Figure(name: "no-op sync: API requests", value: s[0].extraMax("requests"), unit: "requests", target: 1),
            Figure(name: "no-op sync: bytes re-hashed", value: s[0].extraMax("hashed"), unit: "bytes", target: 0),
        ])
    }

    // MARK: Verify

    func verify() throws {
        let dir = try context.freshDirectory(context.disk, "verify")
        let ids = (0..<(verifyGiB * 4)).map { String(format: "v%02d", $0) }
        let servers = try BenchServers(source: source, models: ids.enumerated().map { ($1, 256 << 20, UInt64(500 + $0)) })
        defer { servers.stop() }
        let store = dir.appendingPathComponent("store")
        let manifest = try servers.writeManifest(dir, store: store, ids: ids, concurrency: 4)
        log("installing \(verifyGiB) GiB for the verify figure")
        let first = try Child.run([context.me, "_sync", manifest.path] + servers.rewrite, environment: ["MANASHIKI_API_KEY": BenchServers.key])
        guard first.status == 0 else { throw BenchError("installing failed: \(first.output)") }
        let quoted = ids.map { "'\(store.appendingPathComponent("\($0).bin").path)'" }.joined(separator: " ")
        _ = try Child.shell("cat \(quoted) > /dev/null") // every tool reads from the page cache
        var alternation = Alternation(context: context)
        alternation.keepCache = true
        let s = try alternation.run([
            Peer(name: "`verify` (`Verifier.verify`)", argv: [context.me, "_verify", store.path], check: { r in
                guard r.output.contains("healthy=true") else { throw BenchError("verify found problems") }
                return [:]
            }),
            Peer.shell("`sha256sum` of every file", "sha256sum \(quoted) > /dev/null"),
            Peer.shell("`openssl dgst -sha256`, one file at a time", "for f in \(quoted); do openssl dgst -sha256 \"$f\" > /dev/null; done"),
        ])
        try? FileManager.default.removeItem(at: dir)
        let bytes = Double(verifyGiB) * Double(1 << 30)
        printPeers("`verify` of \(verifyGiB) GiB of installed models (files in the page cache for every tool)", s)
        printTable("Verify figures", [
            Figure(name: "`verify` of \(verifyGiB) GiB: throughput ÷ `sha256sum`", value: median(s[1].wall) / median(s[0].wall), unit: "×", target: 2,
                   comparison: .atLeast, note: String(format: "%.0f MB/s", bytes / median(s[0].wall) / 1e6)),
            Figure(name: "`verify`: throughput ÷ `openssl dgst -sha256` one file at a time", value: median(s[2].wall) / median(s[0].wall), unit: "×",
                   target: 1.5, comparison: .atLeast),
        ])
    }

    // MARK: Planner and state file (6)

    func planner() throws {
        let n = plannerEntries
        let dir = context.disk.appendingPathComponent("planner")
        try? FileManager.default.removeItem(at: dir)
        let layout = StoreLayout(directory: dir)
        try layout.prepare()
        var models: [String: StoreState.Installed] = [:]
        var catalog: [ModelEntry] = []
        var files: [String: StoreSnapshot.File] = [:]
        for i in 0..<n {
            let id = String(format: "model-%05d", i)
            let sha = SHA256Hasher.hash(Data(id.utf8)).hex
            let identity = FileIdentity(size: 1000, mtimeNanoseconds: 1, inode: UInt64(i + 1))
            models[id] = StoreState.Installed(version: "1.0.0", sha256: sha, size: 1000, identity: identity)
            catalog.append(ModelEntry(modelId: id, version: "1.0.0", size: 1000, sha256: sha))
            files[id] = StoreSnapshot.File(identity: identity)
        }
        let state = StoreState(models: models)
        try StateFile.write(state, to: layout)
        let json = #"{"schemaVersion": 1, "registry": {"baseURL": "http://127.0.0.1:1"}, "store": {"directory": "\#(dir.path)"}, "models": ["# +
            catalog.map { #"{"id": "\#($0.modelId)"}"# }.joined(separator: ",") + "]}"
        let manifest = try Manifest.decode(Data(json.utf8))
        var loads: [Double] = [], plans: [Double] = []
        for _ in 1...max(context.rounds, 3) {
            loads.append(try timed {
                guard case .loaded(let s) = StateFile.read(layout), s.models.count == n else { throw BenchError("state did not load") }
            })
            let input = PlanInput(manifest: manifest, device: .current, snapshot: StoreSnapshot(state: state, files: files), catalog: catalog)
            plans.append(try timed {
                let plan = Planner.plan(input)
                guard plan.items.count == n, !plan.changesStore else { throw BenchError("unexpected plan") }
            })
        }
        try? FileManager.default.removeItem(at: dir)
        let budgeted = try budgetPlans(n, state: state, files: files, catalog: catalog, rounds: max(context.rounds, 3))
        printTable("Planner and state file at \(n) entries (in process, medians of \(plans.count))", [
            Figure(name: "plan of \(n) manifest entries", value: median(plans), unit: "s", target: 0.2),
            Figure(name: "plan of \(n) entries with a store.budget evicting \(n / 4) (half optional, last uses recorded)", value: median(budgeted), unit: "s", target: 0.2),
            Figure(name: "state file load with \(n) entries", value: median(loads), unit: "s", target: 0.2),
        ])
    }

    /// Plans of the same store under a budget of 75% of what is installed, half the models
    /// optional with recorded last uses: a quarter of the models are evicted, least recently used first.
    private func budgetPlans(_ n: Int, state: StoreState, files: [String: StoreSnapshot.File], catalog: [ModelEntry], rounds: Int) throws -> [Double] {
        let models = catalog.enumerated().map { i, entry in
            ModelSpec(id: entry.modelId, modelClass: i % 2 == 0 ? .required : .optional, priority: i % 7)
        }
        let budget = StoreBudget(maxBytes: Int64(n) * 1000 * 3 / 4)
        let manifest = Manifest(store: StoreSettings(directory: "/tmp/planner-bench", prune: PrunePolicy(maxDeletes: n), budget: budget), models: models)
        var input = PlanInput(manifest: manifest, device: .current, snapshot: StoreSnapshot(state: state, files: files), catalog: catalog)
        for (i, spec) in models.enumerated() where spec.modelClass == .optional {
            input.lastUse[spec.id] = Date(timeIntervalSince1970: 1_700_000_000 + Double((i * 7919) % n))
        }
        var times: [Double] = []
        for _ in 1...rounds {
            times.append(try timed {
                let plan = Planner.plan(input)
                guard plan.refusal == nil, plan.evictions.count == n / 4, let b = plan.budget, b.plannedBytes <= b.capacityBytes else {
                    throw BenchError("unexpected budget plan")
                }
            })
        }
        return times
    }

    // MARK: Helpers

    private func timed(_ body: () throws -> Void) throws -> Double {
        let start = DispatchTime.now()
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}
#endif

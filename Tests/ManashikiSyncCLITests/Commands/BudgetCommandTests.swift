#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
import ManashikiTestSupport
import ManashikiRegistry

/// A development registry with models of known sizes (KiB) and a manifest with a budget.
final class BudgetFixture: SyncWorkspace, @unchecked Sendable {
    let registry: DevelopmentRegistry
    private let scratch = ScratchDirectory("manashiki-budget")
    var directory: URL { scratch.url }
    var store: URL { directory.appendingPathComponent("models") }
    var environment: [String: String] { ["MANASHIKI_API_KEY": Fixture.key] }

    /// `sizes`: model id → KiB.
    init(sizes: [String: Int]) throws {
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: Fixture.key)]
        for (seed, (id, kib)) in sizes.sorted(by: { $0.key < $1.key }).enumerated() {
            catalog.add(model: RegistryModel(modelId: id, version: "1.0.0", artifact: .generated(size: kib << 10, seed: UInt64(200 + seed)), platforms: ["linux"]))
        }
        registry = try DevelopmentRegistry.start(catalog: catalog)
    }

    deinit { registry.stop() }

    /// Writes the manifest: `budget` is `store.budget`'s JSON, `models` raw entries; `store` the directory.
    func write(budget: String?, models: [String], store: String = "models", maxDeletes: Int = 10) throws {
        let budgetKey = budget.map { #", "budget": \#($0)"# } ?? ""
        let text = """
        {"schemaVersion": 1, "registry": {"baseURL": "\(registry.apiBaseURL.absoluteString)"},
         "store": {"directory": "\(store)", "concurrency": 2, "prune": {"mode": "tracked", "maxDeletes": \(maxDeletes)}\(budgetKey)},
         "device": {"platform": "linux"}, "policies": {"checkCompatibility": false, "retry": {"maxAttempts": 1}},
         "models": [\(models.joined(separator: ", "))]}
        """
        try Data(text.utf8).write(to: manifestURL)
    }

    func expected(_ id: String) -> Data { registry.artifactBytes(modelId: id) ?? Data() }

    /// The model ids installed in `store`, sorted.
    func installed(in store: URL? = nil) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: (store ?? self.store).path)) ?? []
        return names.filter { $0.hasSuffix(".bin") }.map { String($0.dropLast(4)) }.sorted()
    }

    static func entry(_ id: String, _ extra: String = "") -> String { #"{"id": "\#(id)"\#(extra)}"# }
}

@Suite("store budgets (built binary against the development registry)")
struct BudgetCommandTests {
    @Test("optional models fill the budget in priority, then manifest, order; the rest is skipped, and sync exits 0")
    func fillInOrder() async throws {
        let f = try BudgetFixture(sizes: ["req": 40, "o1": 30, "o2": 30, "o3": 20, "o4": 30])
        // 100 KiB: req 40 + o3 20 (priority 5) + o1 30 = 90; o2 (30) does not fit in the 10 left; nor o4.
        try f.write(budget: #"{"maxBytes": "100KiB"}"#, models: [
            BudgetFixture.entry("req"), BudgetFixture.entry("o1", #", "class": "optional""#), BudgetFixture.entry("o2", #", "optional": true"#),
            BudgetFixture.entry("o3", #", "class": "optional", "priority": 5"#), BudgetFixture.entry("o4", #", "class": "optional""#)])
        let result = try await f.run(["sync"])
        #expect(result.status == 0, "\(result.all)")
        #expect(f.installed() == ["o1", "o3", "req"])
        #expect(result.stdout.contains("Budget: 100.0 KiB for models (store.budget.maxBytes); 0 B in the store, 90.0 KiB after the plan; 2 optional models left out."), "\(result.stdout)")
        let text = try await f.run(["plan"])
        #expect(text.stdout.split(separator: "\n").contains { $0.hasPrefix("o2 ") && $0.contains("skip") && $0.contains("optional, not installed: it needs 30.0 KiB and store.budget.maxBytes (100.0 KiB) leaves 10.0 KiB") },
                "\(text.stdout)")
        let plan = try await f.run(["plan", "--json"])
        #expect(plan.status == 0, "\(plan.all)") // in sync: what does not fit is not a pending change
        let budget = try #require((plan.summary()["plan"] as? [String: Any])?["budget"] as? [String: Any])
        #expect(budget["maxBytes"] as? Int == 100 << 10)
        #expect(budget["usedBytes"] as? Int == 90 << 10)
        #expect(budget["leftOut"] as? Int == 2)
    }

    @Test("a required model that needs the room evicts optional models: plan and --json show it, sync does it")
    func evictForRequired() async throws {
        let f = try BudgetFixture(sizes: ["req": 40, "o1": 30, "o2": 30, "big": 50])
        try f.write(budget: #"{"maxBytes": "100KiB"}"#, models: [
            BudgetFixture.entry("req"), BudgetFixture.entry("o1", #", "class": "optional""#), BudgetFixture.entry("o2", #", "class": "onDemand""#)])
        #expect(try await f.run(["sync"]).status == 0)
        try f.write(budget: #"{"maxBytes": "100KiB"}"#, models: [
            BudgetFixture.entry("req"), BudgetFixture.entry("o1", #", "class": "optional""#), BudgetFixture.entry("big")])
        let plan = try await f.run(["plan"])
        #expect(plan.status == 10, "\(plan.all)")
        #expect(plan.stdout.contains("evict"), "\(plan.stdout)")
        #expect(plan.stdout.contains("Budget: 100.0 KiB for models (store.budget.maxBytes"), "\(plan.stdout)")
        let json = try await f.run(["plan", "--json"])
        let items = try #require((json.summary()["plan"] as? [String: Any])?["items"] as? [[String: Any]])
        let evicted = try #require(items.first { $0["modelId"] as? String == "o1" })
        #expect(evicted["action"] as? String == "evict")
        #expect(evicted["bytes"] as? Int == 30 << 10)
        #expect((evicted["reason"] as? String)?.contains("least recently used") == true)
        let sync = try await f.run(["sync", "--metrics-file", "budget.prom"])
        #expect(sync.status == 0, "\(sync.all)")
        #expect(f.installed() == ["big", "req"])
        #expect(sync.stdout.contains("1 evicted"), "\(sync.stdout)")
        let metrics = try String(contentsOf: f.directory.appendingPathComponent("budget.prom"), encoding: .utf8)
        for series in ["manashiki_sync_store_budget_bytes{store=", "manashiki_sync_store_budget_max_bytes{store=", "manashiki_sync_last_run_evicted_bytes{store="] {
            #expect(metrics.contains(series), "\(metrics)")
        }
        #expect(metrics.contains("} 102400\n") && metrics.contains("manashiki_sync_last_run_evicted_bytes") && metrics.contains("} 30720\n"), "\(metrics)")
        #expect(metrics.contains(#"status="evicted"} 1"#), "\(metrics)")
    }

    @Test("required models alone over the budget: nothing moves, sync exits 3, plan exits 1, both name the models and bytes")
    func requiredExceed() async throws {
        let f = try BudgetFixture(sizes: ["r1": 60, "r2": 50, "o": 10])
        try f.write(budget: #"{"maxBytes": "100KiB"}"#, models: [BudgetFixture.entry("r1"), BudgetFixture.entry("r2"), BudgetFixture.entry("o", #", "class": "optional""#)])
        let plan = try await f.run(["plan"])
        #expect(plan.status == 1, "\(plan.all)")
        let sync = try await f.run(["sync"])
        #expect(sync.status == 3, "\(sync.all)")
        #expect(f.installed().isEmpty)
        for output in [plan.stderr, sync.stderr] {
            #expect(output.contains("the required models alone need 110.0 KiB"), "\(output)")
            #expect(output.contains("r1 60.0 KiB (required)") && output.contains("r2 50.0 KiB (required)"), "\(output)")
            #expect(output.contains("raise the budget"), "\(output)")
        }
        let json = try await f.run(["sync", "--json"])
        #expect(json.status == 3)
        #expect(json.summary()["exitCode"] as? Int == 3)
    }
}
#endif

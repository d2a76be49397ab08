import Testing
import Foundation
import ManashikiCore
import Manashiki
@testable import ManashikiSync

/// One budget world: what the planner does with each model, and the arithmetic.
struct BudgetCase: Sendable, CustomTestStringConvertible {
    var testDescription: String
    var world: @Sendable () -> PlanWorld
    /// The action name of each model (`download`, `keep`, `evict`, `skip`…).
    var actions: [String: String]
    /// The store's model bytes once applied, when the plan is not refused.
    var plannedBytes: Int64?
    var evictedBytes: Int64 = 0
    /// The refusal's cause, when refused.
    var refused: BudgetShortfall.Cause?

    static func world(_ budget: StoreBudget, _ build: (inout PlanWorld) -> Void) -> PlanWorld {
        var w = PlanWorld()
        w.budget = budget
        build(&w)
        return w
    }

    static let day: TimeInterval = 86_400

    static let all: [BudgetCase] = [
        .init(testDescription: "optional models fill the budget in manifest order; the one that does not fit is left out",
              world: { world(StoreBudget(maxBytes: 250)) { w in
                  w.models = [ModelSpec(id: "r"), ModelSpec(id: "b", modelClass: .optional), ModelSpec(id: "c", modelClass: .optional)]
                  for id in ["r", "b", "c"] { w.publish(id, "1.0.0") }
              } },
              actions: ["r": "download", "b": "download", "c": "skip"], plannedBytes: 200),
        .init(testDescription: "a higher priority installs first",
              world: { world(StoreBudget(maxBytes: 250)) { w in
                  w.models = [ModelSpec(id: "r"), ModelSpec(id: "b", modelClass: .optional), ModelSpec(id: "c", modelClass: .optional, priority: 5)]
                  for id in ["r", "b", "c"] { w.publish(id, "1.0.0") }
              } },
              actions: ["r": "download", "b": "skip", "c": "download"], plannedBytes: 200),
        .init(testDescription: "a smaller optional model after one that does not fit still fits",
              world: { world(StoreBudget(maxBytes: 260)) { w in
                  w.models = [ModelSpec(id: "r"), ModelSpec(id: "big", modelClass: .optional), ModelSpec(id: "small", modelClass: .optional)]
                  w.publish("r", "1.0.0"); w.publish("big", "1.0.0", size: 200); w.publish("small", "1.0.0", size: 50)
              } },
              actions: ["r": "download", "big": "skip", "small": "download"], plannedBytes: 150),
        .init(testDescription: "a required download evicts the least recently used optional model",
              world: { world(StoreBudget(maxBytes: 300)) { w in
                  w.models = [ModelSpec(id: "old", modelClass: .optional), ModelSpec(id: "recent", modelClass: .optional), ModelSpec(id: "r")]
                  for id in ["old", "recent"] { w.install(id, "1.0.0"); w.publish(id, "1.0.0") }
                  w.publish("r", "1.0.0", size: 150)
                  w.lastUse = ["old": Date(timeIntervalSince1970: 10 * day), "recent": Date(timeIntervalSince1970: 20 * day)]
              } },
              actions: ["old": "evict", "recent": "keep", "r": "download"], plannedBytes: 250, evictedBytes: 100),
        .init(testDescription: "a model in use is never evicted: the next least recently used goes",
              world: { world(StoreBudget(maxBytes: 300)) { w in
                  w.models = [ModelSpec(id: "old", modelClass: .optional), ModelSpec(id: "recent", modelClass: .onDemand), ModelSpec(id: "r")]
                  for id in ["old", "recent"] { w.install(id, "1.0.0"); w.publish(id, "1.0.0") }
                  w.publish("r", "1.0.0", size: 150)
                  w.lastUse = ["old": Date(timeIntervalSince1970: 10 * day), "recent": Date(timeIntervalSince1970: 20 * day)]
                  w.inUse = ["old"]
              } },
              actions: ["old": "keep", "recent": "evict", "r": "download"], plannedBytes: 250, evictedBytes: 100),
        .init(testDescription: "a model with no recorded use counts as used when its file was written",
              world: { world(StoreBudget(maxBytes: 200)) { w in
                  w.models = [ModelSpec(id: "newer", modelClass: .optional), ModelSpec(id: "older", modelClass: .optional), ModelSpec(id: "r")]
                  w.install("newer", "1.0.0", mtime: 5 * day); w.install("older", "1.0.0", mtime: 2 * day)
                  for id in ["newer", "older", "r"] { w.publish(id, "1.0.0") }
              } },
              actions: ["newer": "keep", "older": "evict", "r": "download"], plannedBytes: 200, evictedBytes: 100),
        .init(testDescription: "required models alone over the budget refuse the plan; nothing is evicted",
              world: { world(StoreBudget(maxBytes: 150)) { w in
                  w.models = [ModelSpec(id: "r1"), ModelSpec(id: "r2"), ModelSpec(id: "o", modelClass: .optional)]
                  w.install("r2", "1.0.0"); w.install("o", "1.0.0")
                  for id in ["r1", "r2", "o"] { w.publish(id, "1.0.0") }
              } },
              actions: ["r1": "download", "r2": "keep", "o": "keep"], refused: .requiredExceed),
        .init(testDescription: "making room that needs a model in use refuses the plan",
              world: { world(StoreBudget(maxBytes: 150)) { w in
                  w.models = [ModelSpec(id: "r"), ModelSpec(id: "o", modelClass: .optional)]
                  w.install("o", "1.0.0")
                  for id in ["r", "o"] { w.publish(id, "1.0.0") }
                  w.inUse = ["o"]
              } },
              actions: ["r": "download", "o": "keep"], refused: .inUse(["o"])),
        .init(testDescription: "evictions count toward store.prune.maxDeletes",
              world: { world(StoreBudget(maxBytes: 100)) { w in
                  w.prune.maxDeletes = 1
                  w.models = [ModelSpec(id: "r"), ModelSpec(id: "o1", modelClass: .optional), ModelSpec(id: "o2", modelClass: .optional)]
                  w.install("o1", "1.0.0"); w.install("o2", "1.0.0")
                  for id in ["r", "o1", "o2"] { w.publish(id, "1.0.0") }
              } },
              actions: ["r": "download", "o1": "keep", "o2": "keep"], refused: .deleteLimit(needed: 2, max: 1)),
        .init(testDescription: "keepFreeBytes: the capacity is what is in the store plus the free space less the reserve",
              world: { world(StoreBudget(keepFreeBytes: 500)) { w in
                  w.freeBytes = 450 // 200 in the store + 450 free - 500 kept = 150 for the models
                  w.models = [ModelSpec(id: "o1", modelClass: .optional), ModelSpec(id: "o2", modelClass: .optional), ModelSpec(id: "r")]
                  w.install("o1", "1.0.0", mtime: 1); w.install("o2", "1.0.0", mtime: 2)
                  for id in ["r", "o1", "o2"] { w.publish(id, "1.0.0") }
              } },
              actions: ["o1": "evict", "o2": "evict", "r": "download"], plannedBytes: 100, evictedBytes: 200),
        .init(testDescription: "an on-demand model is not fetched by sync, and is when asked for (evicting the least recently used)",
              world: { world(StoreBudget(maxBytes: 200)) { w in
                  w.models = [ModelSpec(id: "r"), ModelSpec(id: "o", modelClass: .optional), ModelSpec(id: "asked", modelClass: .onDemand),
                              ModelSpec(id: "idle", modelClass: .onDemand)]
                  w.install("r", "1.0.0"); w.install("o", "1.0.0")
                  for id in ["r", "o", "asked", "idle"] { w.publish(id, "1.0.0") }
                  w.demanded = ["asked"]
              } },
              actions: ["r": "keep", "o": "evict", "asked": "download", "idle": "skip"], plannedBytes: 200, evictedBytes: 100),
        .init(testDescription: "an ensure run installs what was asked for, evicts for its room, and leaves every other download, update and prune",
              world: { world(StoreBudget(maxBytes: 300)) { w in
                  w.models = [ModelSpec(id: "r"), ModelSpec(id: "newreq"), ModelSpec(id: "o", modelClass: .optional), ModelSpec(id: "asked", modelClass: .onDemand)]
                  w.install("r", "1.0.0"); w.install("o", "1.0.0"); w.install("gone", "1.0.0")
                  w.publish("r", "2.0.0"); w.publish("newreq", "1.0.0"); w.publish("o", "1.0.0"); w.publish("asked", "1.0.0")
                  w.demanded = ["asked"]
                  w.onlyDemanded = true
              } },
              actions: ["r": "keep", "newreq": "skip", "o": "evict", "asked": "download", "gone": "missing"], plannedBytes: 300, evictedBytes: 100),
        .init(testDescription: "a store within its budget evicts nothing and installs nothing extra",
              world: { world(StoreBudget(maxBytes: 1000)) { w in
                  w.models = [ModelSpec(id: "r"), ModelSpec(id: "o", modelClass: .optional), ModelSpec(id: "d", modelClass: .onDemand)]
                  w.install("r", "1.0.0"); w.install("o", "1.0.0"); w.install("d", "1.0.0")
                  for id in ["r", "o", "d"] { w.publish(id, "1.0.0") }
              } },
              actions: ["r": "keep", "o": "keep", "d": "keep"], plannedBytes: 300),
        .init(testDescription: "a file the manifest no longer lists and prune may not delete counts against the budget",
              world: { world(StoreBudget(maxBytes: 200)) { w in
                  w.prune.mode = .off
                  w.models = [ModelSpec(id: "r"), ModelSpec(id: "o", modelClass: .optional)]
                  w.install("stray", "1.0.0"); w.install("o", "1.0.0")
                  for id in ["r", "o"] { w.publish(id, "1.0.0") }
              } },
              actions: ["r": "download", "o": "evict"], plannedBytes: 200, evictedBytes: 100),
    ]
}

@Suite("Planner: store budgets")
struct PlannerBudgetTests {
    @Test("budget arithmetic and eviction order", arguments: BudgetCase.all)
    func budget(_ c: BudgetCase) throws {
        let plan = c.world().plan
        for (id, name) in c.actions {
            #expect((plan[id]?.action.name ?? "missing") == name, "\(id): \(plan[id]?.description ?? "missing")")
        }
        let budget = try #require(plan.budget)
        if let cause = c.refused {
            guard case .overBudget(let shortfall) = plan.refusal else { Issue.record("not refused: \(String(describing: plan.refusal))"); return }
            #expect(shortfall.cause == cause)
            #expect(plan.evictions.isEmpty)
        } else {
            #expect(plan.refusal == nil, "\(String(describing: plan.refusal))")
            #expect(budget.plannedBytes == c.plannedBytes)
            #expect(budget.plannedBytes <= budget.capacityBytes)
            #expect(budget.evictedBytes == c.evictedBytes)
            #expect(budget.evictions == plan.evictions.count)
        }
    }

    @Test("the refusal names the required models, their bytes and the fix")
    func refusalText() throws {
        let plan = BudgetCase.all.first { $0.refused == .requiredExceed }!.world().plan
        let text = try #require(plan.refusal).description
        #expect(text.contains("r1 100 B (required)"))
        #expect(text.contains("r2 100 B (required)"))
        #expect(text.contains("need 200 B"))
        #expect(text.contains("store.budget.maxBytes (150 B)"))
        #expect(text.contains("raise the budget"))
    }

    @Test("an eviction says why, when the model was last used and what it frees")
    func evictionReason() throws {
        let plan = BudgetCase.all.first { $0.testDescription.hasPrefix("a required download evicts") }!.world().plan
        let item = try #require(plan["old"])
        #expect(item.action == .evict(version: "1.0.0", size: 100, lastUsed: Date(timeIntervalSince1970: 10 * BudgetCase.day)))
        #expect(item.reason.contains("least recently used"))
        #expect(item.reason.contains("last used 1970-01-11T00:00:00Z"))
        #expect(item.reason.contains("frees 100 B"))
    }

    @Test("without a budget nothing is evicted, and optional models all install")
    func noBudget() {
        var w = PlanWorld()
        w.models = [ModelSpec(id: "r"), ModelSpec(id: "o", modelClass: .optional)]
        w.publish("r", "1.0.0"); w.publish("o", "1.0.0")
        let plan = w.plan
        #expect(plan.budget == nil)
        #expect(plan["o"]?.action.name == "download")
    }

    @Test("byte sizes read and print as a manifest and a person write them", arguments: [
        ("8GB", Int64(8_000_000_000)), ("7.5GiB", Int64(8_053_063_680)), ("512 MiB", Int64(536_870_912)), ("100", Int64(100)),
        ("1.5 kb", Int64(1500)), ("2TB", Int64(2_000_000_000_000)),
    ])
    func byteSize(_ text: String, _ bytes: Int64) {
        #expect(ByteSize.parse(text) == bytes)
    }

    @Test("not sizes", arguments: ["", "GB", "4G", "-1GB", "1.5", "4 gigs", "1e3GB"])
    func notSizes(_ text: String) {
        #expect(ByteSize.parse(text) == nil)
    }
}

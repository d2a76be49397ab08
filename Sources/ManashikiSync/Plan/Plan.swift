import Foundation

/// One model's line in a plan.
public struct PlanItem: Sendable, Hashable, CustomStringConvertible {
    /// The model id.
    public var modelId: String
    /// What to do.
    public var action: PlanAction
    /// Why, in words (`"1.4.0 → 1.5.0: the registry serves a newer version satisfying ^1.4"`).
    public var reason: String
    /// Things worth telling a person (a deprecated model, a refused rollback…).
    public var warnings: [String]
    /// Where the bytes are expected to come from: `store` (nothing to fetch), `registry`, or a
    /// source (`bundle /path`, `mirror https://…`); nil when nothing is fetched or kept.
    public var source: String?

    /// Creates an item.
    public init(modelId: String, action: PlanAction, reason: String, warnings: [String] = []) {
        self.modelId = modelId
        self.action = action
        self.reason = reason
        self.warnings = warnings
    }

    /// `download whisper-ja: reason`.
    public var description: String { "\(action.name) \(modelId): \(reason)" }
}

/// Why a plan must not be applied at all.
public enum PlanRefusal: Sendable, Hashable, CustomStringConvertible {
    /// The store's volume lacks the space for the downloads (counting the temporary copies
    /// that coexist with the files they replace).
    case insufficientDiskSpace(needed: Int64, available: Int64)
    /// `store.budget` cannot be met: the required models alone exceed it, or making room would
    /// evict models in use or delete more than `store.prune.maxDeletes` allows.
    case overBudget(BudgetShortfall)
    /// The store exists and this process cannot write it (what is wrong, and what to do).
    case storeNotWritable(String)

    /// Whether `store.budget` cannot be met (`overBudget`).
    public var isOverBudget: Bool { if case .overBudget = self { return true } else { return false } }

    /// What is wrong and what to do.
    public var description: String {
        switch self {
        case .insufficientDiskSpace(let needed, let available):
            let f = ByteCountFormatter()
            return "not enough disk space: the plan needs \(f.string(fromByteCount: needed)) and the store's volume has \(f.string(fromByteCount: available)) free; free up space or sync fewer models"
        case .overBudget(let shortfall):
            return shortfall.description
        case .storeNotWritable(let problem):
            return problem
        }
    }
}

/// What a sync will do: one item per manifest entry (in manifest order), then the prunes.
///
/// A pure value, built by `Planner.plan(_:)` and compared with `==` in tests.
public struct Plan: Sendable, Hashable {
    /// Every decision.
    public var items: [PlanItem]
    /// Bytes the downloads and replacements will fetch.
    public var bytesToFetch: Int64
    /// Free bytes on the store's volume when planned, if known.
    public var freeBytes: Int64?
    /// Set when the plan must not be applied.
    public var refusal: PlanRefusal?
    /// The budget arithmetic, when the manifest has a `store.budget`.
    public var budget: BudgetPlan?

    /// Creates a plan.
    public init(items: [PlanItem], bytesToFetch: Int64, freeBytes: Int64?, refusal: PlanRefusal?) {
        self.items = items
        self.bytesToFetch = bytesToFetch
        self.freeBytes = freeBytes
        self.refusal = refusal
    }

    /// The item for `modelId`.
    public subscript(modelId: String) -> PlanItem? { items.first { $0.modelId == modelId } }

    /// Whether applying the plan changes anything.
    public var changesStore: Bool { items.contains { $0.action.changesStore } }

    /// The evictions, in plan order.
    public var evictions: [PlanItem] { items.filter { if case .evict = $0.action { return true } else { return false } } }

    /// Items that cannot proceed.
    public var blocked: [PlanItem] { items.filter { if case .blocked = $0.action { return true } else { return false } } }

    /// Every warning, prefixed by its model id.
    public var warnings: [String] { items.flatMap { item in item.warnings.map { "\(item.modelId): \($0)" } } }
}

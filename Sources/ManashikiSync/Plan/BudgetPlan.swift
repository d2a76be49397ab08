import Foundation
import ManashikiCore

/// The budget arithmetic of a plan (`Plan.budget`), when the manifest has a `store.budget`.
///
/// `capacityBytes` is what the store's model files may take together: `maxBytes`, or, with
/// `keepFreeBytes`, the bytes in the store now plus the volume's free bytes less the reserve,
/// whichever is smaller.
public struct BudgetPlan: Sendable, Hashable {
    /// Which limit decides the capacity.
    public enum Limit: String, Sendable, Hashable {
        /// `store.budget.maxBytes`.
        case maxBytes
        /// `store.budget.keepFreeBytes` (the volume's free space less the reserve).
        case keepFreeBytes
    }

    /// The manifest's budget.
    public var budget: StoreBudget
    /// What the model files may take after the run.
    public var capacityBytes: Int64
    /// Which limit gives `capacityBytes`.
    public var limitedBy: Limit
    /// What the store's model files take now.
    public var usedBytes: Int64
    /// What they take once the plan is applied (downloads in, evictions and prunes out).
    public var plannedBytes: Int64
    /// Bytes the evictions free.
    public var evictedBytes: Int64
    /// How many models are evicted.
    public var evictions: Int
    /// Optional models left out because they do not fit.
    public var leftOut: Int

    /// Creates the arithmetic.
    public init(budget: StoreBudget, capacityBytes: Int64, limitedBy: Limit, usedBytes: Int64, plannedBytes: Int64,
                evictedBytes: Int64 = 0, evictions: Int = 0, leftOut: Int = 0) {
        self.budget = budget
        self.capacityBytes = capacityBytes
        self.limitedBy = limitedBy
        self.usedBytes = usedBytes
        self.plannedBytes = plannedBytes
        self.evictedBytes = evictedBytes
        self.evictions = evictions
        self.leftOut = leftOut
    }

    /// `store.budget.maxBytes`, or `store.budget.keepFreeBytes (2.00 GiB kept free on the volume)`.
    public var limitName: String {
        switch limitedBy {
        case .maxBytes: return "store.budget.maxBytes"
        case .keepFreeBytes: return limitText
        }
    }

    /// `store.budget.maxBytes (4.0 GB)` or `store.budget.keepFreeBytes (2.0 GB free kept on the volume)`.
    public var limitText: String {
        switch limitedBy {
        case .maxBytes: return "store.budget.maxBytes (\(ByteSize.text(budget.maxBytes ?? capacityBytes)))"
        case .keepFreeBytes: return "store.budget.keepFreeBytes (\(ByteSize.text(budget.keepFreeBytes ?? 0)) kept free on the volume)"
        }
    }
}

/// Why a budget cannot be met (`PlanRefusal.overBudget`): what has to stay or come, and why
/// the rest cannot make room.
public struct BudgetShortfall: Sendable, Hashable {
    /// Why nothing can make room.
    public enum Cause: Sendable, Hashable {
        /// The required models (and what the run may not delete) alone exceed the budget.
        case requiredExceed
        /// Evicting every model not in use would not be enough: these are in use (leased).
        case inUse([String])
        /// Making room needs more deletes than `store.prune.maxDeletes` allows this run.
        case deleteLimit(needed: Int, max: Int)
    }

    /// One model (or file) that has to stay or be installed.
    public struct Pinned: Sendable, Hashable {
        /// The model id.
        public var modelId: String
        /// Its bytes once the plan is applied.
        public var bytes: Int64
        /// Why it stays: `required`, `ensure`, `in use`, `not in the manifest`, …
        public var why: String

        /// Creates one.
        public init(modelId: String, bytes: Int64, why: String) {
            self.modelId = modelId
            self.bytes = bytes
            self.why = why
        }
    }

    /// Why.
    public var cause: Cause
    /// What has to stay or come, largest first.
    public var pinned: [Pinned]
    /// Their bytes together.
    public var neededBytes: Int64
    /// The budget's arithmetic.
    public var budget: BudgetPlan

    /// Creates a shortfall.
    public init(cause: Cause, pinned: [Pinned], neededBytes: Int64, budget: BudgetPlan) {
        self.cause = cause
        self.pinned = pinned
        self.neededBytes = neededBytes
        self.budget = budget
    }

    /// What is wrong and what to do, naming the models and their bytes.
    public var description: String {
        let shown = pinned.prefix(8).map { "\($0.modelId) \(ByteSize.text($0.bytes)) (\($0.why))" }
        let more = pinned.count > 8 ? " and \(pinned.count - 8) more" : ""
        let list = shown.joined(separator: ", ") + more
        let capacity = ByteSize.text(budget.capacityBytes)
        switch cause {
        case .requiredExceed:
            return "over budget: the required models alone need \(ByteSize.text(neededBytes)) and \(budget.limitText) leaves room for \(capacity): \(list); nothing was changed — raise the budget, free space on the volume, or make some of them \"class\": \"optional\""
        case .inUse(let ids):
            return "over budget: making room needs evicting models in use (\(ids.joined(separator: ", "))); the models that must stay need \(ByteSize.text(neededBytes)) and \(budget.limitText) leaves room for \(capacity): \(list); nothing was changed — close them (release their leases) and run again, or raise the budget"
        case .deleteLimit(let needed, let max):
            return "over budget: making room needs \(needed) deletes, more than store.prune.maxDeletes (\(max)) allows; nothing was changed — raise store.prune.maxDeletes, or allow it for one run with \(Remedy.maxDelete(needed))"
        }
    }
}

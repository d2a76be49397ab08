import Foundation
import ManashikiCore

/// Fitting a plan into `store.budget`: what is evicted, what optional model is left out, and
/// when the plan is refused. Pure, like the rest of the planner.
///
/// The capacity is `maxBytes`, or (with `keepFreeBytes`) the bytes in the store now plus the
/// volume's free bytes less the reserve, whichever is smaller. Then:
/// 1. what must stay or come — required models, models asked for (`ensure`), files the run may
///    not delete — must fit, or the plan is refused (`BudgetShortfall.Cause.requiredExceed`);
/// 2. so must models in use (leased), which are never evicted (`.inUse`);
/// 3. installed optional and on-demand models are evicted least recently used first (the file's
///    modification time when no use was recorded; lower `priority`, then id, break ties) until
///    the rest fits, never more than `store.prune.maxDeletes` deletes with the prunes (`.deleteLimit`);
/// 4. optional models not installed yet fill what is left, higher `priority` first, then in
///    manifest order; one that does not fit is skipped (a smaller one after it may fit). They
///    never evict anything.
extension Planner {
    /// A model the budget may evict.
    struct Evictable {
        var index: Int
        var bytes: Int64
        var onDisk: Int64
        var lastUse: Date
        var priority: Int
    }

    /// What the budget pass works from: the items sorted into what must stay, what is in use,
    /// what may go and what may come.
    struct BudgetLedger {
        var fixedBytes: Int64 = 0
        var pinned: [BudgetShortfall.Pinned] = []
        var inUseBytes: Int64 = 0
        var inUse: [BudgetShortfall.Pinned] = []
        var evictable: [Evictable] = []
        /// Optional downloads: item index, size, priority.
        var newcomers: [(index: Int, size: Int64, priority: Int)] = []
        var prunes = 0
    }

    /// Applies the budget to `items` (evictions, left-out optional models); returns the
    /// arithmetic, and a refusal when the budget cannot be met.
    static func fitBudget(_ items: inout [PlanItem], _ input: PlanInput) -> (BudgetPlan?, PlanRefusal?) {
        guard let budget = input.manifest.store.budget else { return (nil, nil) }
        let used = input.snapshot.files.values.map(\.identity.size).clampedSum()
        var arithmetic = capacity(budget, used: used, free: input.freeBytes)
        let ledger = ledger(items, input)
        func refuse(_ cause: BudgetShortfall.Cause, _ pinned: [BudgetShortfall.Pinned], _ needed: Int64) -> (BudgetPlan?, PlanRefusal?) {
            refusal(cause, pinned, needed, arithmetic, plannedBytes(items, input))
        }
        let capacity = arithmetic.capacityBytes
        if ledger.fixedBytes > capacity { return refuse(.requiredExceed, ledger.pinned, ledger.fixedBytes) }
        let mustStay = ledger.fixedBytes.addingClamped(ledger.inUseBytes)
        if mustStay > capacity { return refuse(.inUse(ledger.inUse.map(\.modelId).sorted()), ledger.pinned + ledger.inUse, mustStay) }

        // 3. Evict the least recently used until what may stay fits.
        let room = capacity.subtractingClamped(mustStay)
        var keptBytes = ledger.evictable.map(\.bytes).clampedSum()
        var evicted: [Evictable] = []
        for candidate in ledger.evictable.sorted(by: evictsFirst) where keptBytes > room {
            evicted.append(candidate)
            keptBytes = keptBytes.subtractingClamped(candidate.bytes)
        }
        let allowance = input.forcePrune ? Int.max : max(0, input.manifest.store.prune.maxDeletes - ledger.prunes)
        if evicted.count > allowance {
            return refuse(.deleteLimit(needed: evicted.count + ledger.prunes, max: input.manifest.store.prune.maxDeletes), [], mustStay)
        }
        let dates = evicted.isEmpty ? nil : ISO8601DateFormatter() // one per plan: a formatter is costly to make
        let limit = arithmetic.limitText
        for e in evicted { items[e.index] = evictItem(items[e.index], e, limit: limit, input, dates: dates!) }

        // 4. Optional newcomers fill what is left, in priority order.
        var left = room.subtractingClamped(keptBytes)
        var leftOut = 0
        for newcomer in ledger.newcomers.sorted(by: { ($0.priority, $1.index) > ($1.priority, $0.index) }) {
            if newcomer.size <= left { left = left.subtractingClamped(newcomer.size); continue }
            items[newcomer.index] = leftOutItem(items[newcomer.index], needed: newcomer.size, available: left, arithmetic)
            leftOut += 1
        }
        arithmetic.evictions = evicted.count
        arithmetic.evictedBytes = evicted.map(\.onDisk).clampedSum()
        arithmetic.leftOut = leftOut
        arithmetic.plannedBytes = plannedBytes(items, input)
        return (arithmetic, nil)
    }

    /// A refused budget: nothing is evicted or left out.
    static func refusal(_ cause: BudgetShortfall.Cause, _ pinned: [BudgetShortfall.Pinned], _ needed: Int64,
                        _ arithmetic: BudgetPlan, _ planned: Int64) -> (BudgetPlan?, PlanRefusal?) {
        var arithmetic = arithmetic
        arithmetic.plannedBytes = planned
        let sorted = pinned.sorted { ($0.bytes, $1.modelId) > ($1.bytes, $0.modelId) }
        return (arithmetic, .overBudget(BudgetShortfall(cause: cause, pinned: sorted, neededBytes: needed, budget: arithmetic)))
    }

    /// The capacity and which limit sets it; `plannedBytes` is filled in later.
    static func capacity(_ budget: StoreBudget, used: Int64, free: Int64?) -> BudgetPlan {
        var capacity = budget.maxBytes ?? Int64.max
        var limit = BudgetPlan.Limit.maxBytes
        if let keep = budget.keepFreeBytes {
            // Without a free-space figure the reserve cannot be checked; maxBytes still applies.
            let byReserve = free.map { max(0, used.addingClamped($0).subtractingClamped(keep)) } ?? Int64.max
            if byReserve < capacity || budget.maxBytes == nil { capacity = byReserve; limit = .keepFreeBytes }
        }
        return BudgetPlan(budget: budget, capacityBytes: capacity, limitedBy: limit, usedBytes: used, plannedBytes: used)
    }

    /// Sorts the items by what the budget may do with them.
    static func ledger(_ items: [PlanItem], _ input: PlanInput) -> BudgetLedger {
        var ledger = BudgetLedger()
        let specs = Dictionary(input.manifest.models.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        var listed = Set<String>()
        for (index, item) in items.enumerated() {
            let id = item.modelId
            listed.insert(id)
            let onDisk = input.snapshot.files[id]?.identity.size
            let bytes = finalBytes(item, onDisk: onDisk)
            if case .prune = item.action { ledger.prunes += 1 }
            guard let spec = specs[id] else {
                if bytes > 0 { ledger.pin(id, bytes, "not in the manifest, not deleted this run") }
                continue
            }
            if spec.modelClass == .required || input.demanded.contains(id) {
                if bytes > 0 { ledger.pin(id, bytes, input.demanded.contains(id) ? "asked for" : "required") }
            } else if let onDisk {
                if input.inUse.contains(id) {
                    ledger.inUseBytes = ledger.inUseBytes.addingClamped(bytes)
                    ledger.inUse.append(.init(modelId: id, bytes: bytes, why: "\(spec.modelClass), in use"))
                } else if isEvictable(item.action) {
                    let mtime = input.snapshot.files[id].map { Date(timeIntervalSince1970: Double($0.identity.mtimeNanoseconds) / 1e9) } ?? .distantPast
                    ledger.evictable.append(Evictable(index: index, bytes: bytes, onDisk: onDisk, lastUse: input.lastUse[id] ?? mtime, priority: spec.priority))
                } else if bytes > 0 {
                    ledger.pin(id, bytes, "\(spec.modelClass), left in place")
                }
            } else if case .download(let target) = item.action {
                ledger.newcomers.append((index, target.size, spec.priority))
            }
        }
        for (id, file) in input.snapshot.files where !listed.contains(id) {
            ledger.pin(id, file.identity.size, "not in the manifest, not deleted")
        }
        return ledger
    }

    /// The bytes an item's model takes once the plan is applied.
    static func finalBytes(_ item: PlanItem, onDisk: Int64?) -> Int64 {
        switch item.action {
        case .download(let t), .replace(_, let t, _): return t.size
        case .evict, .prune: return 0
        case .keep, .verify, .skip, .blocked: return onDisk ?? 0
        }
    }

    /// What the store's model files take once `items` are applied.
    static func plannedBytes(_ items: [PlanItem], _ input: PlanInput) -> Int64 {
        var listed = Set<String>()
        var total: Int64 = 0
        for item in items {
            listed.insert(item.modelId)
            total = total.addingClamped(finalBytes(item, onDisk: input.snapshot.files[item.modelId]?.identity.size))
        }
        for (id, file) in input.snapshot.files where !listed.contains(id) { total = total.addingClamped(file.identity.size) }
        return total
    }

    static func isEvictable(_ action: PlanAction) -> Bool {
        switch action {
        case .keep, .verify, .replace: return true
        default: return false
        }
    }

    /// Least recently used first; then lower priority, then id.
    static func evictsFirst(_ a: Evictable, _ b: Evictable) -> Bool {
        if a.lastUse != b.lastUse { return a.lastUse < b.lastUse }
        if a.priority != b.priority { return a.priority < b.priority }
        return a.index < b.index
    }

    static func evictItem(_ item: PlanItem, _ e: Evictable, limit: String, _ input: PlanInput, dates: ISO8601DateFormatter) -> PlanItem {
        let version: String?
        switch item.action {
        case .keep(let v), .verify(let v, _, _): version = v
        case .replace(let from, _, _): version = from
        default: version = input.snapshot.state.models[item.modelId]?.version
        }
        let used = input.lastUse[item.modelId].map { "last used \(BudgetText.date($0, dates))" } ?? "never used since it was installed \(BudgetText.date(e.lastUse, dates))"
        return PlanItem(modelId: item.modelId, action: .evict(version: version, size: e.onDisk, lastUsed: input.lastUse[item.modelId]),
                        reason: "evicted to stay within \(limit): the least recently used optional or on-demand model (\(used)); frees \(ByteSize.text(e.onDisk))")
    }

    static func leftOutItem(_ item: PlanItem, needed: Int64, available: Int64, _ budget: BudgetPlan) -> PlanItem {
        PlanItem(modelId: item.modelId, action: .skip(.overBudget(needed: needed, available: available)),
                 reason: "optional, not installed: it needs \(ByteSize.text(needed)) and \(budget.limitText) leaves \(ByteSize.text(max(0, available)))")
    }
}

extension Planner.BudgetLedger {
    mutating func pin(_ id: String, _ bytes: Int64, _ why: String) {
        fixedBytes = fixedBytes.addingClamped(bytes)
        pinned.append(.init(modelId: id, bytes: bytes, why: why))
    }
}

/// Dates in plan reasons: `2026-12-02T04:00:00Z` (the same on every machine).
enum BudgetText {
    static func date(_ date: Date, _ formatter: ISO8601DateFormatter) -> String {
        guard date > Date(timeIntervalSince1970: 0) else { return "at an unknown time" }
        return formatter.string(from: date)
    }
}

import Foundation
import ManashikiCore

/// The armed faults. A rule for a specific model wins over a rule for every model; each
/// firing decrements the rule's count, and exhausted rules disappear.
final class FaultTable: @unchecked Sendable {
    private let rules = Locked<[RegistryFaultRule]>([])

    /// Arms `rule`, replacing any rule for the same endpoint and model.
    func set(_ rule: RegistryFaultRule) {
        rules.withLock { all in
            all.removeAll { $0.endpoint == rule.endpoint && $0.modelId == rule.modelId }
            if rule.fault.count.map({ $0 > 0 }) ?? true { all.append(rule) }
        }
    }

    /// Removes every rule.
    func clear() { rules.withLock { $0.removeAll() } }

    /// The armed rules with their remaining counts.
    var all: [RegistryFaultRule] { rules.current }

    /// Fires the fault for a request to `endpoint` about `modelId`, if one is armed.
    func take(_ endpoint: RegistryEndpoint, modelId: String?) -> RegistryFault.Kind? {
        rules.withLock { all in
            let index = all.firstIndex { $0.endpoint == endpoint && $0.modelId != nil && $0.modelId == modelId }
                ?? all.firstIndex { $0.endpoint == endpoint && $0.modelId == nil }
            guard let index else { return nil }
            let kind = all[index].fault.kind
            if let remaining = all[index].fault.count {
                if remaining <= 1 { all.remove(at: index) } else { all[index].fault.count = remaining - 1 }
            }
            return kind
        }
    }
}

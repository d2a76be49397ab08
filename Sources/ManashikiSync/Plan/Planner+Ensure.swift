import Foundation

/// An `ensure` run (`PlanInput.onlyDemanded`): the models asked for are installed (or kept, or
/// updated) whatever their class, evicting what their room needs; nothing else is downloaded,
/// replaced or pruned — that is the next sync's work.
extension Planner {
    static func restrictToDemanded(_ items: [PlanItem], _ input: PlanInput) -> [PlanItem] {
        items.map { item in
            let id = item.modelId
            if input.demanded.contains(id) {
                // Asked for but not for this device: the caller must hear it, not a silent skip.
                if case .skip(.filteredOut) = item.action {
                    let platforms = input.manifest.models.first { $0.id == id }?.platforms ?? []
                    return PlanItem(modelId: id, action: .blocked(.incompatible([.platform(supported: platforms, device: input.device.platform)])),
                                    reason: "asked for, but \(item.reason)")
                }
                return item
            }
            switch item.action {
            case .download, .blocked:
                return PlanItem(modelId: id, action: .skip(.notRequested), reason: "not asked for: left to the next sync")
            case .replace(let from, _, _) where from != nil:
                return PlanItem(modelId: id, action: .keep(version: from!), reason: "not asked for: left as it is; the next sync updates it")
            case .replace:
                return PlanItem(modelId: id, action: .skip(.notRequested), reason: "not asked for: left to the next sync")
            default:
                return item
            }
        }
    }
}

import Foundation
import Manashiki
import ManashikiCore

/// `store` and `metrics`.
extension ManifestValidator {
    mutating func storeSettings(_ o: [String: JSONValue]) -> StoreSettings {
        var settings = StoreSettings()
        if let directory = string(o, "directory", at: "store", nonEmpty: true) { settings.directory = directory }
        if let n = int(o, "concurrency", at: "store", range: 1...64) { settings.concurrency = n }
        if let owner = string(o, "owner", at: "store") {
            if let problem = StoreOwner.problem(with: owner) {
                problems.append(ManifestProblem(path: "store.owner", message: "\"\(owner)\" \(problem)", hint: #"name this manifest's owner like "inference-service" or "com.example.app""#))
            } else { settings.owner = owner }
        }
        if let value = o["prune"], let p = object(value, at: "store.prune", known: Self.pruneKeys) {
            if let mode = string(p, "mode", at: "store.prune") {
                if let m = PrunePolicy.Mode(rawValue: mode) { settings.prune.mode = m } else {
                    problems.append(ManifestProblem(path: "store.prune.mode", message: "\"\(mode)\" is not a prune mode", hint: oneOf(PrunePolicy.Mode.allCases.map(\.rawValue), near: mode)))
                }
            }
            if let n = int(p, "maxDeletes", at: "store.prune", range: 0...100_000) { settings.prune.maxDeletes = n }
            if let b = bool(p, "allowEmptyManifest", at: "store.prune") { settings.prune.allowEmptyManifest = b }
        }
        if let value = o["budget"], let b = object(value, at: "store.budget", known: Self.budgetKeys) { settings.budget = storeBudget(b) }
        return settings
    }

    /// `store.budget`: `maxBytes` and/or `keepFreeBytes`, each a byte count or a size with a unit.
    mutating func storeBudget(_ o: [String: JSONValue]) -> StoreBudget? {
        guard o["maxBytes"] != nil || o["keepFreeBytes"] != nil else {
            if o.isEmpty {
                problems.append(ManifestProblem(path: "store.budget", message: "names no limit",
                                                hint: #"write "budget": {"maxBytes": "8GB"}, {"keepFreeBytes": "2GB"} or both, or remove it"#))
            }
            return nil
        }
        let max = byteSize(o, "maxBytes", at: "store.budget", range: 1...StoreBudget.largest,
                           zero: "a store that may hold 0 bytes can hold no model; give the room the models may take, or remove maxBytes")
        let keep = byteSize(o, "keepFreeBytes", at: "store.budget", range: 0...StoreBudget.largest, zero: nil)
        return StoreBudget(maxBytes: max, keepFreeBytes: keep)
    }

    mutating func metricsSettings(_ o: [String: JSONValue]) -> MetricsSettings {
        MetricsSettings(file: string(o, "file", at: "metrics", nonEmpty: true))
    }
}

import Foundation
import Manashiki
import ManashikiCore

/// `policies`: lifecycle, compatibility, retry, timeouts, bandwidth and networks.
extension ManifestValidator {
    mutating func syncPolicies(_ o: [String: JSONValue]) -> SyncPolicies {
        var policies = SyncPolicies()
        if let value = o["lifecycle"] {
            let known = ["draft", "staging", "production", "deprecated", "sunset"]
            if case .array(let items) = value {
                var statuses: [LifecycleStatus] = []
                for (i, item) in items.enumerated() {
                    let path = "policies.lifecycle[\(i)]"
                    guard case .string(let s) = item else {
                        problems.append(ManifestProblem(path: path, message: "must be a string, not \(item.typeName)", hint: oneOf(known, near: "")))
                        continue
                    }
                    if s == "sunset" {
                        problems.append(ManifestProblem(path: path, message: "sunset models cannot be downloaded", hint: "remove \"sunset\""))
                    } else if known.contains(s) {
                        statuses.append(LifecycleStatus(rawValue: s))
                    } else {
                        problems.append(ManifestProblem(path: path, message: "\"\(s)\" is not a lifecycle status", hint: oneOf(known.filter { $0 != "sunset" }, near: s)))
                    }
                }
                policies.allowedStatuses = statuses
            } else {
                problems.append(ManifestProblem(path: "policies.lifecycle", message: "must be an array, not \(value.typeName)", hint: #"write ["production", "deprecated"]"#))
            }
        }
        if let b = bool(o, "checkCompatibility", at: "policies") { policies.checkCompatibility = b }
        if let n = int(o, "downloadTimeoutSeconds", at: "policies", range: 1...604_800) { policies.downloadTimeoutSeconds = n }
        if let n = int(o, "partialRetentionHours", at: "policies", range: 0...8760) { policies.partialRetentionHours = n }
        if let n = int(o, "maxBytesPerSecond", at: "policies", range: 1024...(1 << 40)) { policies.maxBytesPerSecond = n }
        if let value = o["retry"], let r = object(value, at: "policies.retry", known: Self.retryKeys) {
            if let n = int(r, "maxAttempts", at: "policies.retry", range: 1...20) { policies.maxAttempts = n }
            if let n = int(r, "maxRetryAfterSeconds", at: "policies.retry", range: 0...3600) { policies.maxRetryAfterSeconds = n }
        }
        if let value = o["network"], let n = object(value, at: "policies.network", known: Self.networkKeys) {
            var network = NetworkPolicy()
            if let b = bool(n, "cellular", at: "policies.network") { network.allowsCellular = b }
            if let b = bool(n, "expensive", at: "policies.network") { network.allowsExpensive = b }
            if let b = bool(n, "lowDataMode", at: "policies.network") { network.allowsConstrained = b }
            if let b = bool(n, "waitForConnectivity", at: "policies.network") { network.waitsForConnectivity = b }
            policies.network = network
        }
        if let value = o["transfer"], let t = object(value, at: "policies.transfer", known: Self.transferKeys) {
            policies.transfer = transferPolicy(t)
        }
        if let value = o["documents"], let d = object(value, at: "policies.documents", known: Self.documentKeys) {
            policies.documents = documentLimits(d)
        }
        return policies
    }

    /// `policies.documents`: each field in its range (the problem names the field).
    private mutating func documentLimits(_ d: [String: JSONValue]) -> DocumentLimits {
        var limits = DocumentLimits.default
        if let n = int(d, "timeoutSeconds", at: "policies.documents", range: 1...3600) { limits.timeout = TimeInterval(n) }
        if let n = int(d, "minBytesPerSecond", at: "policies.documents", range: 0...(1 << 30)) { limits.minimumBytesPerSecond = n }
        if let n = int(d, "rateWindowSeconds", at: "policies.documents", range: 1...600) { limits.rateWindow = TimeInterval(n) }
        return limits
    }

    /// `policies.transfer`: each field in its range (the problem names the field).
    private mutating func transferPolicy(_ t: [String: JSONValue]) -> TransferPolicy {
        TransferPolicy(maxConnections: int(t, "maxConnections", at: "policies.transfer", range: 1...64),
                       parallelThresholdBytes: int(t, "parallelThresholdBytes", at: "policies.transfer", range: (1 << 20)...(1 << 40)).map(Int64.init),
                       maxRunConnections: int(t, "maxRunConnections", at: "policies.transfer", range: 1...256))
    }
}

import Foundation
import Manashiki
import ManashikiCore

/// Turns a JSON document into a `Manifest`, collecting every problem with its path and a hint.
struct ManifestValidator {
    private var problems: [ManifestProblem] = []

    static let rootKeys = ["schemaVersion", "registry", "store", "device", "policies", "metrics", "sources", "fallback", "models"]
    static let metricsKeys = ["file"]
    static let registryKeys = ["baseURL", "apiKey", "caBundle"]
    static let storeKeys = ["directory", "concurrency", "prune", "owner"]
    static let pruneKeys = ["mode", "maxDeletes", "allowEmptyManifest"]
    static let deviceKeys = ["platform", "osVersion", "memoryMB", "diskMB"]
    static let policyKeys = ["lifecycle", "checkCompatibility", "retry", "downloadTimeoutSeconds", "partialRetentionHours", "maxBytesPerSecond", "network", "transfer"]
    static let retryKeys = ["maxAttempts", "maxRetryAfterSeconds"]
    static let networkKeys = ["cellular", "expensive", "lowDataMode", "waitForConnectivity"]
    static let transferKeys = ["maxConnections", "parallelThresholdBytes", "maxRunConnections"]
    static let modelKeys = ["id", "version", "sha256", "platforms", "session", "optional"]
    static let keySourceKeys = ["env", "file"]
    static let sessionKeys = ["env", "file", "command", "mint"]
    static let mintKeys = ["principalId", "ttlSec"]

    /// Validates `root` and builds the manifest.
    /// - Throws: `ManifestError` with every problem found.
    static func validate(_ root: JSONValue) throws -> Manifest {
        guard case .object(let top) = root else {
            throw ManifestError(problems: [ManifestProblem(path: "", message: "the manifest must be a JSON object, not \(root.typeName)", hint: #"start from examples/manifests/fleet.json"#)])
        }
        try checkSchemaVersion(top["schemaVersion"])
        var v = ManifestValidator()
        v.refuseSecrets(in: root)
        let manifest = v.manifest(top)
        if !v.problems.isEmpty { throw ManifestError(problems: v.problems) }
        return manifest
    }

    /// The schema version is read first: a document of another version is not validated further.
    private static func checkSchemaVersion(_ value: JSONValue?) throws {
        let supported = Manifest.currentSchemaVersion
        guard let value else {
            throw ManifestError(problems: [ManifestProblem(path: "schemaVersion", message: "is missing", hint: "add \"schemaVersion\": \(supported)")])
        }
        guard let n = value.number, n == n.rounded() else {
            throw ManifestError(problems: [ManifestProblem(path: "schemaVersion", message: "must be an integer, not \(value.typeName)", hint: "write \"schemaVersion\": \(supported)")])
        }
        guard Int(n) == supported else {
            throw ManifestError(problems: [ManifestProblem(
                path: "schemaVersion",
                message: "schema version \(Int(n)) is not supported (this version of ManashikiSync reads schema version \(supported))",
                hint: Int(n) > supported ? "update ManashikiSync / manashiki-sync, or write the manifest for schema version \(supported)" : "write \"schemaVersion\": \(supported)")])
        }
    }

    // MARK: Secrets

    /// Refuses anything that looks like an API key or a session token, anywhere, without echoing it.
    private mutating func refuseSecrets(in root: JSONValue) {
        let separators = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\"'=:,;/()[]{}<>"))
        for (path, text) in root.strings(at: "") {
            let tokens = [text] + text.components(separatedBy: separators).filter { !$0.isEmpty }
            if tokens.contains(where: APIKey.isValid) {
                problems.append(ManifestProblem(
                    path: path,
                    message: "contains what looks like an API key; literal keys are refused because manifests get committed (the value is not shown)",
                    hint: #"remove it (and revoke the key if this file was shared), then use "apiKey": {"env": "MANASHIKI_API_KEY"} or {"file": "path/to/key"}"#))
            } else if tokens.contains(where: { $0.hasPrefix("mks_") && $0.count >= 16 }) {
                problems.append(ManifestProblem(
                    path: path,
                    message: "contains what looks like a session token; tokens are secrets and expire (the value is not shown)",
                    hint: #"use "session": {"env": "…"}, {"file": "…"}, {"command": […]} or {"mint": {…}}"#))
            }
        }
    }

    // MARK: Sections

    private mutating func manifest(_ top: [String: JSONValue]) -> Manifest {
        checkKeys(top, known: Self.rootKeys, at: "")
        let registry = top["registry"].flatMap { object($0, at: "registry", known: Self.registryKeys) }.map { registrySettings($0) } ?? RegistrySettings()
        let store = top["store"].flatMap { object($0, at: "store", known: Self.storeKeys) }.map { storeSettings($0) } ?? StoreSettings()
        let device = top["device"].flatMap { object($0, at: "device", known: Self.deviceKeys) }.flatMap { deviceProfile($0) }
        let policies = top["policies"].flatMap { object($0, at: "policies", known: Self.policyKeys) }.map { syncPolicies($0) } ?? SyncPolicies()
        let metrics = top["metrics"].flatMap { object($0, at: "metrics", known: Self.metricsKeys) }.map { metricsSettings($0) } ?? MetricsSettings()
        var models: [ModelSpec] = []
        if let value = top["models"] {
            if case .array(let items) = value {
                models = modelSpecs(items)
            } else {
                problems.append(ManifestProblem(path: "models", message: "must be an array, not \(value.typeName)", hint: #"write "models": [{"id": "…"}]"#))
            }
        } else {
            problems.append(ManifestProblem(path: "models", message: "is missing", hint: #"add "models": [{"id": "…", "version": "latest"}] (an empty array is allowed)"#))
        }
        let (sources, fallback, sourceProblems) = ArtifactSourceParser.parse(sources: top["sources"], fallback: top["fallback"])
        problems += sourceProblems
        var manifest = Manifest(registry: registry, store: store, device: device, policies: policies, metrics: metrics, models: models)
        manifest.sources = sources
        manifest.fallback = fallback
        manifest.schemaVersion = Manifest.currentSchemaVersion
        return manifest
    }

    private mutating func registrySettings(_ o: [String: JSONValue]) -> RegistrySettings {
        var settings = RegistrySettings()
        if let text = string(o, "baseURL", at: "registry") {
            if let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
               scheme == "https" || (scheme == "http" && Self.isLoopback(host)) {
                settings.baseURL = url
            } else {
                problems.append(ManifestProblem(path: "registry.baseURL", message: "\"\(text)\" is not an https URL (http is allowed only for localhost)", hint: #"use "https://models.manashiki.com""#))
            }
        }
        if let value = o["apiKey"] { settings.apiKey = keySource(value, at: "registry.apiKey") ?? .default }
        // The file itself is checked once paths can be resolved (`Manifest.tlsTrust()`).
        settings.caBundle = string(o, "caBundle", at: "registry", nonEmpty: true)
        return settings
    }

    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    private mutating func keySource(_ value: JSONValue, at path: String) -> KeySource? {
        let hint = #"write {"env": "MANASHIKI_API_KEY"} or {"file": "path/to/key"}"#
        if case .string = value {
            // A literal key is reported by refuseSecrets; anything else is a type error.
            if !problems.contains(where: { $0.path == path }) {
                problems.append(ManifestProblem(path: path, message: "must be an object naming where the key comes from, not a string", hint: hint))
            }
            return nil
        }
        guard let o = object(value, at: path, known: Self.keySourceKeys) else { return nil }
        guard o.count == 1 else {
            problems.append(ManifestProblem(path: path, message: "must have exactly one of \"env\" or \"file\"", hint: hint))
            return nil
        }
        if let name = string(o, "env", at: path, nonEmpty: true) { return .environment(name) }
        if let file = string(o, "file", at: path, nonEmpty: true) { return .file(file) }
        return nil
    }

    private mutating func storeSettings(_ o: [String: JSONValue]) -> StoreSettings {
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
        return settings
    }

    private mutating func metricsSettings(_ o: [String: JSONValue]) -> MetricsSettings {
        MetricsSettings(file: string(o, "file", at: "metrics", nonEmpty: true))
    }

    private mutating func deviceProfile(_ o: [String: JSONValue]) -> DeviceProfile? {
        let platform = platformValue(o["platform"], at: "device.platform")
        if o["platform"] == nil {
            problems.append(ManifestProblem(path: "device.platform", message: "is missing", hint: "name the device's platform, one of \(Platform.known.map(\.rawValue).joined(separator: ", "))"))
        }
        var os: String?
        if let text = string(o, "osVersion", at: "device") {
            if ModelVersion(text) == nil {
                problems.append(ManifestProblem(path: "device.osVersion", message: "\"\(text)\" is not a dotted version", hint: #"write it like "17.2""#))
            } else { os = text }
        }
        let memory = int(o, "memoryMB", at: "device", range: 1...Int(Int32.max))
        let disk = int(o, "diskMB", at: "device", range: 0...Int(Int32.max))
        return platform.map { DeviceProfile(platform: $0, osVersion: os, memoryMB: memory, diskMB: disk) }
    }

    private mutating func syncPolicies(_ o: [String: JSONValue]) -> SyncPolicies {
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
            policies.transfer.maxConnections = int(t, "maxConnections", at: "policies.transfer", range: 1...64)
            policies.transfer.parallelThresholdBytes = int(t, "parallelThresholdBytes", at: "policies.transfer", range: (1 << 20)...(1 << 40)).map(Int64.init)
            policies.transfer.maxRunConnections = int(t, "maxRunConnections", at: "policies.transfer", range: 1...256)
        }
        return policies
    }

    private mutating func modelSpecs(_ items: [JSONValue]) -> [ModelSpec] {
        var specs: [ModelSpec] = []
        var firstIndex: [String: Int] = [:]
        for (i, item) in items.enumerated() {
            let path = "models[\(i)]"
            guard let o = object(item, at: path, known: Self.modelKeys) else { continue }
            guard let id = string(o, "id", at: path) else {
                if o["id"] == nil { problems.append(ManifestProblem(path: "\(path).id", message: "is missing", hint: #"add "id": "<model id from the catalog>""#)) }
                continue
            }
            guard ModelID.isValid(id) else {
                problems.append(ManifestProblem(path: "\(path).id", message: "\"\(id)\" is not a valid model id", hint: "ids are 1-128 lowercase letters, digits, '.', '_' and '-', starting and ending with a letter or digit, without '..'"))
                continue
            }
            if let first = firstIndex[id] {
                problems.append(ManifestProblem(path: "\(path).id", message: "duplicate id \"\(id)\" (already at models[\(first)])", hint: "keep one entry per model; use \"platforms\" on a single entry to target several platforms"))
                continue
            }
            firstIndex[id] = i
            var spec = ModelSpec(id: id)
            if let text = string(o, "version", at: path) {
                do { spec.version = try VersionRequirement(parsing: text) } catch let e as VersionRequirement.ParseError {
                    problems.append(ManifestProblem(path: "\(path).version", message: e.message, hint: e.hint))
                } catch {}
            }
            if let sha = string(o, "sha256", at: path) {
                if Hex.isSHA256(sha) { spec.sha256 = sha } else {
                    problems.append(ManifestProblem(path: "\(path).sha256", message: "is not 64 lowercase hex characters", hint: "copy the digest from the catalog (GET /api/models) or `shasum -a 256`"))
                }
            }
            if let value = o["platforms"] {
                if case .array(let list) = value, !list.isEmpty {
                    let platforms = list.enumerated().compactMap { platformValue($0.element, at: "\(path).platforms[\($0.offset)]") }
                    if platforms.count == list.count { spec.platforms = platforms }
                } else {
                    problems.append(ManifestProblem(path: "\(path).platforms", message: "must be a non-empty array of platforms", hint: "omit it to apply to every platform, or list some of \(Platform.known.map(\.rawValue).joined(separator: ", "))"))
                }
            }
            if let value = o["session"] { spec.session = sessionSource(value, at: "\(path).session") }
            if let b = bool(o, "optional", at: path) { spec.isOptional = b }
            specs.append(spec)
        }
        return specs
    }

    private mutating func sessionSource(_ value: JSONValue, at path: String) -> SessionSource? {
        let hint = #"write {"env": "VAR"}, {"file": "path"}, {"command": ["/path/to/tool", "arg"]} or {"mint": {"principalId": "…"}}"#
        if case .string = value {
            if !problems.contains(where: { $0.path == path }) {
                problems.append(ManifestProblem(path: path, message: "must be an object naming where the token comes from, not a string", hint: hint))
            }
            return nil
        }
        guard let o = object(value, at: path, known: Self.sessionKeys) else { return nil }
        guard o.count == 1, let (key, inner) = o.first else {
            problems.append(ManifestProblem(path: path, message: "must have exactly one of \"env\", \"file\", \"command\" or \"mint\"", hint: hint))
            return nil
        }
        switch key {
        case "env": return string(o, "env", at: path, nonEmpty: true).map { .environment($0) }
        case "file": return string(o, "file", at: path, nonEmpty: true).map { .file($0) }
        case "command":
            if case .array(let parts) = inner, !parts.isEmpty {
                let argv = parts.compactMap { part -> String? in if case .string(let s) = part { return s } else { return nil } }
                if argv.count == parts.count, !argv[0].isEmpty { return .command(argv) }
            }
            problems.append(ManifestProblem(path: "\(path).command", message: "must be a non-empty array of strings (argv; no shell)", hint: #"write ["/usr/local/bin/fetch-session", "--model", "x"]"#))
            return nil
        default:
            guard let m = object(inner, at: "\(path).mint", known: Self.mintKeys) else { return nil }
            let principal = string(m, "principalId", at: "\(path).mint", nonEmpty: true)
            if m["principalId"] == nil {
                problems.append(ManifestProblem(path: "\(path).mint.principalId", message: "is missing", hint: "name who the session is for, e.g. \"fleet-agent\""))
            }
            let ttl = int(m, "ttlSec", at: "\(path).mint", range: ManashikiClient.sessionTTLRange) ?? 3600
            return principal.map { .mint(principalId: $0, ttlSec: ttl) }
        }
    }

    // MARK: Primitives

    private mutating func checkKeys(_ o: [String: JSONValue], known: [String], at path: String) {
        for key in o.keys.sorted() where !known.contains(key) {
            let hint = NearestKey.suggestion(for: key, among: known).map { "did you mean \"\($0)\"?" }
                ?? "known keys here: \(known.joined(separator: ", "))"
            problems.append(ManifestProblem(path: ManifestPath.join(path, key), message: "unknown key", hint: hint))
        }
    }

    private mutating func object(_ value: JSONValue, at path: String, known: [String]) -> [String: JSONValue]? {
        guard case .object(let o) = value else {
            problems.append(ManifestProblem(path: path, message: "must be an object, not \(value.typeName)"))
            return nil
        }
        checkKeys(o, known: known, at: path)
        return o
    }

    private mutating func string(_ o: [String: JSONValue], _ key: String, at path: String, nonEmpty: Bool = false) -> String? {
        guard let value = o[key] else { return nil }
        guard case .string(let s) = value else {
            problems.append(ManifestProblem(path: ManifestPath.join(path, key), message: "must be a string, not \(value.typeName)"))
            return nil
        }
        if nonEmpty && s.isEmpty {
            problems.append(ManifestProblem(path: ManifestPath.join(path, key), message: "must not be empty"))
            return nil
        }
        return s
    }

    private mutating func int(_ o: [String: JSONValue], _ key: String, at path: String, range: ClosedRange<Int>) -> Int? {
        guard let value = o[key] else { return nil }
        let full = ManifestPath.join(path, key)
        guard let n = value.number, n == n.rounded(), abs(n) < 1e15 else {
            problems.append(ManifestProblem(path: full, message: "must be an integer, not \(value.typeName == "a number" ? "a fraction" : value.typeName)"))
            return nil
        }
        guard range.contains(Int(n)) else {
            problems.append(ManifestProblem(path: full, message: "\(Int(n)) is out of range", hint: "use a value from \(range.lowerBound) to \(range.upperBound)"))
            return nil
        }
        return Int(n)
    }

    private mutating func bool(_ o: [String: JSONValue], _ key: String, at path: String) -> Bool? {
        guard let value = o[key] else { return nil }
        guard case .bool(let b) = value else {
            problems.append(ManifestProblem(path: ManifestPath.join(path, key), message: "must be true or false, not \(value.typeName)"))
            return nil
        }
        return b
    }

    private mutating func platformValue(_ value: JSONValue?, at path: String) -> Platform? {
        guard let value else { return nil }
        let names = Platform.known.map(\.rawValue)
        guard case .string(let s) = value else {
            problems.append(ManifestProblem(path: path, message: "must be a string, not \(value.typeName)", hint: oneOf(names, near: "")))
            return nil
        }
        guard names.contains(s) else {
            problems.append(ManifestProblem(path: path, message: "\"\(s)\" is not a platform", hint: oneOf(names, near: s)))
            return nil
        }
        return Platform(rawValue: s)
    }

    private func oneOf(_ names: [String], near word: String) -> String {
        if !word.isEmpty, let best = NearestKey.suggestion(for: word, among: names) { return "did you mean \"\(best)\"?" }
        return "use one of " + names.map { "\"\($0)\"" }.joined(separator: ", ")
    }
}

import Foundation
import Manashiki
import ManashikiCore

/// Turns a JSON document into a `Manifest`, collecting every problem with its path and a hint.
///
/// One file per manifest section: `ManifestValidator+Registry.swift`, `+Store`, `+Device`, `+Policies`,
/// `+Models`, `+Session`; secrets anywhere in `+Secrets`; the typed readers in `+Primitives`.
struct ManifestValidator {
    var problems: [ManifestProblem] = []

    static let rootKeys = ["schemaVersion", "registry", "store", "device", "policies", "metrics", "sources", "fallback", "trust", "models"]
    static let metricsKeys = ["file"]
    static let registryKeys = ["baseURL", "apiKey", "caBundle"]
    static let storeKeys = ["directory", "concurrency", "prune", "owner", "budget"]
    static let budgetKeys = ["maxBytes", "keepFreeBytes"]
    static let pruneKeys = ["mode", "maxDeletes", "allowEmptyManifest"]
    static let deviceKeys = ["platform", "osVersion", "memoryMB", "diskMB"]
    static let policyKeys = ["lifecycle", "checkCompatibility", "retry", "downloadTimeoutSeconds", "partialRetentionHours", "maxBytesPerSecond", "network", "transfer", "documents"]
    static let retryKeys = ["maxAttempts", "maxRetryAfterSeconds"]
    static let networkKeys = ["cellular", "expensive", "lowDataMode", "waitForConnectivity"]
    static let transferKeys = ["maxConnections", "parallelThresholdBytes", "maxRunConnections"]
    static let documentKeys = ["timeoutSeconds", "minBytesPerSecond", "rateWindowSeconds"]
    static let modelKeys = ["id", "version", "sha256", "platforms", "session", "optional", "class", "priority", "signature"]
    static let keySourceKeys = ["env", "file"]
    static let sessionKeys = ["env", "file", "command", "mint"]
    static let mintKeys = ["principalId", "ttlSec"]

    /// Validates `root` and builds the manifest.
    /// - Throws: `ManifestError` with every problem found.
    static func validate(_ root: JSONValue) throws -> Manifest {
        guard case .object(let top) = root else {
            throw ManifestError(problems: [ManifestProblem(path: "", message: "the manifest must be a JSON object, not \(root.typeName)", hint: Manifest.smallestManifestHint)])
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
            // Names the library and the command both: an app and the command read manifests alike.
            throw ManifestError(problems: [ManifestProblem(
                path: "schemaVersion",
                message: "schema version \(Int(n)) is not supported (this version of ManashikiSync reads schema version \(supported))",
                hint: Int(n) > supported ? "update ManashikiSync / manashiki-sync, or write the manifest for schema version \(supported)" : "write \"schemaVersion\": \(supported)")])
        }
    }


    // MARK: Sections

    mutating func manifest(_ top: [String: JSONValue]) -> Manifest {
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
        if let value = top["trust"], let section = object(value, at: "trust", known: Self.trustKeys) { manifest.trust = trustSettings(section) }
        checkSignatureRequirements(manifest)
        manifest.sources = sources
        manifest.fallback = fallback
        manifest.schemaVersion = Manifest.currentSchemaVersion
        return manifest
    }
}

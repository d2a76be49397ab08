import Foundation
import ManashikiCore
import Manashiki

/// The desired state of a model store: which models, which versions, for which devices, from
/// which registry. Decoded from JSON (schema version 1) and validated as a whole.
///
/// ```swift
/// let manifest = try Manifest.load(contentsOf: URL(fileURLWithPath: "models.json"))
/// // or: try Manifest.decode(data)   (strict JSON; JSONDecoder also works, with its own parser)
/// ```
/// See `examples/manifest.schema.json` and `examples/manifests/` for the format.
public struct Manifest: Sendable, Hashable, Decodable {
    /// The only schema version this library reads.
    public static let currentSchemaVersion = 1

    /// The schema version (1).
    public var schemaVersion: Int
    /// The registry to sync from.
    public var registry: RegistrySettings
    /// Where and how models are stored.
    public var store: StoreSettings
    /// The device to check compatibility against; nil means the current machine.
    public var device: DeviceProfile?
    /// What is acceptable.
    public var policies: SyncPolicies
    /// Where the run's Prometheus metrics go.
    public var metrics: MetricsSettings
    /// Bundles and mirrors tried, in order, before the registry (see `ArtifactSource`).
    public var sources: [ArtifactSource] = []
    /// Whether the registry is tried when no source has an artifact. Default `.registry`.
    public var fallback: SourceFallback = .registry
    /// What must vouch for a model before it is installed, replaced or kept as verified
    /// (`trust`: signed TUF metadata, publisher signatures; none by default).
    public var trust: TrustSettings = TrustSettings()
    /// The models wanted, in order.
    public var models: [ModelSpec]
    /// The directory relative paths resolve against (the manifest file's directory when
    /// loaded with `load(contentsOf:)`; the current directory otherwise).
    public var baseDirectory: URL?

    /// Creates a manifest in code.
    public init(registry: RegistrySettings = RegistrySettings(), store: StoreSettings = StoreSettings(),
                device: DeviceProfile? = nil, policies: SyncPolicies = SyncPolicies(),
                metrics: MetricsSettings = MetricsSettings(), models: [ModelSpec], baseDirectory: URL? = nil) {
        self.schemaVersion = Manifest.currentSchemaVersion
        self.registry = registry
        self.store = store
        self.device = device
        self.policies = policies
        self.metrics = metrics
        self.models = models
        self.baseDirectory = baseDirectory
    }

    /// The most bytes of a manifest read (one is a few KiB; thousands of models fit in 1 MiB).
    public static let maxBytes = 16 << 20

    /// Reads and validates the manifest at `url`; relative paths resolve against its directory.
    /// The file is opened non-blocking and refused unless it is a regular file (a FIFO cannot
    /// hang the run), at most `maxBytes` read.
    /// - Throws: `ManifestError` listing every problem; `APIError.fileSystem` if unreadable.
    public static func load(contentsOf url: URL) throws -> Manifest {
        var manifest = try decode(RegularFile.contents(url.path, limit: maxBytes))
        manifest.baseDirectory = url.deletingLastPathComponent()
        _ = try manifest.tlsTrust()
        return manifest
    }

    /// Decodes and validates manifest JSON.
    /// - Throws: `ManifestError` listing every problem.
    ///
    /// JSON is read strictly: a trailing comma or a duplicate key is refused with its path
    /// (readers disagree on duplicates: Foundation keeps the first, jq and Python the last).
    public static func decode(_ data: Data) throws -> Manifest {
        let value: JSONValue
        do { value = try JSONValue.parse(data) } catch {
            throw ManifestError(problems: [ManifestProblem(path: error.path, message: "not valid JSON: \(error.message) (line \(error.line), column \(error.column))",
                                                           hint: "check for a missing or extra comma, quote or bracket")])
        }
        return try ManifestValidator.validate(value)
    }

    /// Decodes through `JSONDecoder`, validating the whole document.
    /// - Throws: `ManifestError` listing every problem.
    public init(from decoder: any Decoder) throws {
        let value: JSONValue
        do { value = try JSONValue(from: decoder) } catch {
            throw ManifestError(problems: [ManifestProblem(path: "", message: "the manifest is not valid JSON", hint: "check for a missing comma, quote or bracket")])
        }
        self = try ManifestValidator.validate(value)
    }

    /// The store directory: `store.directory` resolved against `baseDirectory`, or the SDK's
    /// default (`ManashikiClient.defaultStorageDirectory`).
    public var storeDirectory: URL {
        guard let path = store.directory else { return ManashikiClient.defaultStorageDirectory }
        return PathResolver.resolve(path, against: baseDirectory)
    }

    /// The directory of a bundle source, resolved like `store.directory`.
    public func bundleDirectory(_ path: String) -> URL { PathResolver.resolve(path, against: baseDirectory) }

    /// `metrics.file` resolved against `baseDirectory`, or nil when the manifest names none.
    public var metricsFile: URL? { metrics.file.map { PathResolver.resolve($0, against: baseDirectory) } }
}

extension Manifest {
    /// What to start a manifest from, with the smallest one itself (an installed command has no
    /// `examples/` to point at) and where every key is described.
    package static let smallestManifestHint = #"start from the smallest manifest, {"schemaVersion": 1, "models": [{"id": "MODEL-ID"}]} "#
        + "(every key: the manifest reference, https://github.com/Nozium/manashiki-models-swift/blob/main/docs/sync-agent.md#the-sync-agent-manifest)"
}

/// The registry a manifest syncs from.
public struct RegistrySettings: Sendable, Hashable {
    /// The registry origin. Default `https://models.manashiki.com`.
    public var baseURL: URL
    /// Where the API key comes from. Default the `MANASHIKI_API_KEY` environment variable.
    public var apiKey: KeySource
    /// `registry.caBundle` as written: a PEM file of CA certificates trusted, in addition to the
    /// system's, for every host the run talks to (registry, storage, mirrors); nil for none.
    /// Resolved like the manifest's other paths (`Manifest.caBundleFile`).
    public var caBundle: String?

    /// Creates settings.
    public init(baseURL: URL = ManashikiClient.defaultBaseURL, apiKey: KeySource = .default, caBundle: String? = nil) {
        self.baseURL = baseURL
        self.apiKey = apiKey
        self.caBundle = caBundle
    }
}

/// Where and how models are stored.
public struct StoreSettings: Sendable, Hashable {
    /// The store directory as written (absolute, `~/…` or relative to the manifest); nil for
    /// the SDK's default.
    public var directory: String?
    /// How many downloads run at once. Default 4.
    public var concurrency: Int
    /// What may be deleted.
    public var prune: PrunePolicy
    /// Who this manifest claims models for in a store that several manifests share
    /// (`store.owner`); nil is `StoreOwner.current`. Two services syncing different manifests
    /// into one store each name themselves, so neither prunes what the other still wants.
    public var owner: String?
    /// How much room the models may take (`store.budget`); nil: no budget (every wanted model is
    /// installed if the volume has room for it, nothing is evicted).
    public var budget: StoreBudget?

    /// Creates settings.
    public init(directory: String? = nil, concurrency: Int = 4, prune: PrunePolicy = PrunePolicy(), owner: String? = nil,
                budget: StoreBudget? = nil) {
        self.directory = directory
        self.concurrency = concurrency
        self.prune = prune
        self.owner = owner
        self.budget = budget
    }
}

import Foundation
import Manashiki

/// Brings a store to a manifest's desired state: lock, clean leftovers, plan, apply, prune.
///
/// ```swift
/// let manifest = try Manifest.load(contentsOf: manifestURL)
/// let report = try await Reconciler(manifest: manifest).run()   // key from the manifest's source
/// print(report.summary)
///
/// // With progress:
/// for await event in try Reconciler(manifest: manifest, apiKey: "mk_pub_acme_…").events() {
///     if case .progress(let id, let written, let total) = event { print(id, written, total ?? -1) }
/// }
/// ```
/// Planning (`Planner`) is pure; this type is the thin shell around it that does the I/O.
public struct Reconciler: Sendable {
    /// How a run behaves beyond what the manifest says.
    public struct Options: Sendable {
        /// How long to wait for another run's lock before giving up with `.storeBusy`. Default 30 s.
        public var lockTimeout: Duration
        /// How often to retry the lock while waiting.
        public var lockPollInterval: Duration
        /// How to wait for the lock (injectable for tests).
        public var sleep: @Sendable (Duration) async throws -> Void
        /// Override the prune guards (max deletes, empty manifest).
        public var forcePrune: Bool
        /// Plan only: nothing is downloaded, deleted or recorded.
        public var dryRun: Bool
        /// The device to check against; nil uses the manifest's, else the current machine.
        public var device: DeviceProfile?
        /// Retries; nil builds one from the manifest's `policies.retry`.
        public var retry: RetryPolicy?
        /// Free bytes on the store's volume (injectable for tests).
        public var freeSpace: @Sendable (URL) -> Int64?
        /// Where keys and session tokens come from.
        public var environment: SyncEnvironment
        /// How each download transfers (stall timeout, resumptions, redirects); the manifest's
        /// `policies.downloadTimeoutSeconds`, when set, replaces its `deadline`;
        /// `policies.partialRetentionHours` its `partialRetention`.
        public var download: DownloadOptions
        /// Sources tried before the manifest's `sources` (`sync --from`).
        public var extraSources: [ArtifactSource] = []
        /// Install exactly these artifacts and refuse anything else (`sync --locked`); nil
        /// follows the catalog.
        public var lock: LockFile?
        /// Make no request to the registry (`--offline`): plan from `lock`, else from the bundle
        /// sources' indexes and the OCI sources' tags; only bundle directories and OCI registries
        /// (an air-gapped site's own) serve downloads, mirrors are not used, and
        /// `init(manifest:apiKey:transport:options:)` needs no key. The one place a run is offline.
        public var offline = false
        /// Seconds without a byte from a mirror before it counts as failed and the next source
        /// (or the registry) is tried. Default 15.
        public var mirrorIdleTimeout: TimeInterval = 15
        /// Who this run claims models for in a store shared by several apps, manifests, or an
        /// app and the CLI. Nil: the manifest's `store.owner`, else `StoreOwner.current` (the
        /// bundle identifier, else `default`). A prune deletes a model only when no other owner
        /// still claims it.
        public var owner: String?
        /// The models an `ensure(_:)` run installs (nothing else is downloaded, updated or
        /// pruned; a use of each is recorded); nil for a sync. Set by `ensure(_:)`.
        public var ensuring: [String]?
        /// Publisher keys and roots pinned instead of the manifest's `trust.modelSigning` keys
        /// and roots: an app's keys shipped in its bundle (`PublisherKey(contentsOf:
        /// Bundle.main.url(…))`). The manifest's section still says which models need a
        /// signature and where signatures are; without one, every model needs a signature,
        /// found in the store or carried by the sources. Nil: the manifest's.
        public var publisherTrust: PublisherTrust?
        /// Where `trust.tuf`'s high-water marks (the highest version installed with trust, per
        /// model, and the latest time trust was checked) are kept. Nil: the store's
        /// `.manashiki/trust/high-water.json`, except in `ModelSync.restore`, which uses
        /// `AppTrustMarks.forStore(_:)` (the Keychain on Apple platforms), so a
        /// restore of the app's files cannot roll them back.
        public var trustHighWaterMarks: (any TrustHighWaterMarks)?

        /// Creates options with the defaults described on each property.
        public init(lockTimeout: Duration = .seconds(30), lockPollInterval: Duration = .milliseconds(100),
                    sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
                    forcePrune: Bool = false, dryRun: Bool = false, device: DeviceProfile? = nil, retry: RetryPolicy? = nil,
                    freeSpace: @escaping @Sendable (URL) -> Int64? = DiskSpace.available,
                    environment: SyncEnvironment = .process, download: DownloadOptions = DownloadOptions()) {
            self.lockTimeout = lockTimeout
            self.lockPollInterval = lockPollInterval
            self.sleep = sleep
            self.forcePrune = forcePrune
            self.dryRun = dryRun
            self.device = device
            self.retry = retry
            self.freeSpace = freeSpace
            self.environment = environment
            self.download = download
        }
    }

    /// The desired state.
    public let manifest: Manifest
    /// The registry (a `ManashikiClient` storing into the manifest's store, or a fake).
    public let registry: any RegistryClient
    /// Run options.
    public let options: Options

    /// Creates a reconciler over any registry client.
    public init(manifest: Manifest, registry: any RegistryClient, options: Options = Options()) {
        self.manifest = manifest
        self.registry = registry
        self.options = options
    }

    /// Creates a reconciler with a `ManashikiClient` for the manifest's registry and store.
    ///
    /// - Parameters:
    ///   - apiKey: the key; nil reads it from the manifest's `registry.apiKey` source.
    ///     Apps pass their publishable `mk_pub_` key here.
    ///   - transport: how requests are sent; nil builds a `DefaultTransport` with the
    ///     manifest's `policies.network` and `registry.caBundle` (`Manifest.defaultTransport()`;
    ///     a transport passed in keeps its own policy and trust).
    ///
    /// With `options.offline` no client is built, and so no key or CA bundle is read: the run
    /// makes no request at all.
    /// - Throws: `SyncFailure` when the key source is missing; `APIError.invalidAPIKey`;
    ///   `ManifestError` when `registry.caBundle` cannot be used.
    public init(manifest: Manifest, apiKey: String? = nil, transport: (any HTTPTransport)? = nil,
                options: Options = Options()) throws {
        if options.offline {
            self.init(manifest: manifest, registry: OfflineRegistry(storageDirectory: manifest.storeDirectory), options: options)
            return
        }
        let transport = try transport ?? manifest.defaultTransport()
        let key: String
        if let apiKey { key = apiKey } else {
            do {
                key = try SecretResolver(environment: options.environment, baseDirectory: manifest.baseDirectory)
                    .apiKey(manifest.registry.apiKey).value
            } catch { throw SyncFailure(kind: .terminal, message: error.message) }
        }
        var client = try ManashikiClient(apiKey: key, baseURL: manifest.registry.baseURL, transport: transport,
                                         storageDirectory: manifest.storeDirectory)
        client.documentLimits = manifest.policies.documents
        self.init(manifest: manifest, registry: client, options: options)
    }

    /// Runs the sync and returns its report; `onEvent` sees every event as it happens (it may
    /// be called from several tasks at once, so keep it quick and thread-safe).
    public func run(onEvent: (@Sendable (SyncEvent) -> Void)? = nil) async -> SyncReport {
        let emit = onEvent ?? { _ in }
        let report = await SyncRun(manifest: manifest, registry: registry, options: options, retry: retryPolicy,
                                 download: downloadOptions, emit: emit).perform()
        emit(.finished(report))
        return report
    }

    /// Runs the sync, streaming its events; the last one is `.finished(report)`. Stopping the
    /// iteration cancels the run.
    public func events() -> AsyncStream<SyncEvent> {
        AsyncStream { continuation in
            let task = Task {
                _ = await run { continuation.yield($0) }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Plans without applying (a dry run: the lock is taken, nothing is written).
    public func plan() async -> SyncReport {
        var copy = options
        copy.dryRun = true
        return await Reconciler(manifest: manifest, registry: registry, options: copy).run()
    }

    /// The download options in effect.
    /// A new `BandwidthLimiter` for `policies.maxBytesPerSecond` and a new `ConnectionBudget`
    /// for `policies.transfer.maxRunConnections` each time (so compute this once per run: its
    /// downloads share them), unless `options.download` has its own.
    var downloadOptions: DownloadOptions {
        var download = options.download
        if let seconds = manifest.policies.downloadTimeoutSeconds { download.deadline = TimeInterval(seconds) }
        if let hours = manifest.policies.partialRetentionHours { download.partialRetention = TimeInterval(hours) * 3600 }
        if download.rateLimiter == nil, let rate = manifest.policies.maxBytesPerSecond {
            download.rateLimiter = BandwidthLimiter(bytesPerSecond: Int64(rate))
        }
        let transfer = manifest.policies.transfer
        if let n = transfer.maxConnections { download.maxConnections = n }
        if let n = transfer.parallelThresholdBytes { download.parallelThreshold = n }
        if download.connectionBudget == nil {
            download.connectionBudget = ConnectionBudget(limit: transfer.maxRunConnections ?? TransferPolicy.defaultMaxRunConnections)
        }
        return download
    }

    /// The retry policy in effect.
    var retryPolicy: RetryPolicy {
        if let retry = options.retry { return retry }
        return RetryPolicy(maxAttempts: manifest.policies.maxAttempts,
                           maxRetryAfter: .seconds(manifest.policies.maxRetryAfterSeconds))
    }
}

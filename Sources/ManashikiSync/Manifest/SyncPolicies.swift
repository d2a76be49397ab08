import Foundation
import Manashiki

/// What the agent accepts, with defaults that suit most uses.
///
/// ```json
/// "policies": {"lifecycle": ["production", "deprecated"], "checkCompatibility": true,
///              "retry": {"maxAttempts": 4, "maxRetryAfterSeconds": 60},
///              "downloadTimeoutSeconds": 3600, "partialRetentionHours": 168, "maxBytesPerSecond": 20971520,
///              "network": {"cellular": true, "expensive": false, "lowDataMode": false, "waitForConnectivity": true},
///              "transfer": {"maxConnections": 16, "parallelThresholdBytes": 33554432, "maxRunConnections": 32},
///              "documents": {"timeoutSeconds": 60, "minBytesPerSecond": 1024, "rateWindowSeconds": 10}}
/// ```
public struct SyncPolicies: Sendable, Hashable {
    /// Lifecycle statuses that may be installed. Default `production` and `deprecated`
    /// (the latter with a warning). `sunset` models are always skipped.
    public var allowedStatuses: [LifecycleStatus]
    /// Whether `platforms`, `min_os`, RAM and disk are checked against the device profile.
    public var checkCompatibility: Bool
    /// How many times a retryable failure is attempted in all (1 = no retry).
    public var maxAttempts: Int
    /// The longest `Retry-After` honoured, in seconds.
    public var maxRetryAfterSeconds: Int
    /// The most one model's download may take, resumptions included (nil: no limit; a stalled
    /// transfer is stopped after 60 s without a byte anyway).
    public var downloadTimeoutSeconds: Int?
    /// How long an interrupted download's partial file is kept for a later run to resume, in
    /// hours (`policies.partialRetentionHours`, 0…8760; 0 keeps partials only for the run; nil:
    /// `DownloadOptions.partialRetention`, 7 days).
    public var partialRetentionHours: Int?
    /// One bandwidth limit for all of a run's downloads together, in bytes per second (nil: no
    /// limit). Concurrent downloads share it (`BandwidthLimiter`).
    public var maxBytesPerSecond: Int?
    /// Which networks downloads may use (`policies.network`: `cellular`, `expensive`,
    /// `lowDataMode`, `waitForConnectivity`, each true or false; nil: every network, no
    /// waiting). Applied by the transport a `Reconciler` builds when none is passed in; Apple
    /// platforms only (Linux has no notion of expensive or constrained networks).
    public var network: NetworkPolicy?
    /// How artifacts are transferred (`policies.transfer`): connections per artifact, the
    /// size from which several may be used, and the run's total.
    public var transfer: TransferPolicy = TransferPolicy()
    /// How long and how slowly a server may send a document (`policies.documents`:
    /// `timeoutSeconds`, `minBytesPerSecond`, `rateWindowSeconds`): the catalog, a record, a
    /// mirror's index, an OCI manifest or token. Default `DocumentLimits.default` (60 s, 1 KiB/s
    /// over 10 s).
    public var documents: DocumentLimits = .default

    /// Creates policies; the defaults are described on each property.
    public init(
        allowedStatuses: [LifecycleStatus] = [.production, .deprecated],
        checkCompatibility: Bool = true,
        maxAttempts: Int = 4,
        maxRetryAfterSeconds: Int = 60,
        downloadTimeoutSeconds: Int? = nil,
        partialRetentionHours: Int? = nil,
        maxBytesPerSecond: Int? = nil,
        network: NetworkPolicy? = nil
    ) {
        self.allowedStatuses = allowedStatuses
        self.checkCompatibility = checkCompatibility
        self.maxAttempts = maxAttempts
        self.maxRetryAfterSeconds = maxRetryAfterSeconds
        self.downloadTimeoutSeconds = downloadTimeoutSeconds
        self.partialRetentionHours = partialRetentionHours
        self.maxBytesPerSecond = maxBytesPerSecond
        self.network = network
    }
}

/// `policies.transfer`: how many connections an artifact's transfer may open (the count adapts
/// up to it, docs/transfers.md), from what size, and how many a run opens in all.
public struct TransferPolicy: Sendable, Hashable {
    /// The most connections one artifact's transfer opens (1…64; 1: always one stream).
    /// Default `DownloadOptions.maxConnections` (16).
    public var maxConnections: Int?
    /// Artifacts of at least this many bytes may use several connections (1 MiB…1 TiB).
    /// Default `DownloadOptions.parallelThreshold` (32 MiB).
    public var parallelThresholdBytes: Int64?
    /// The most connections the run opens at once over all its downloads (1…256; every
    /// download keeps at least one). Default 32.
    public var maxRunConnections: Int?

    /// The run's total when the manifest gives none.
    public static let defaultMaxRunConnections = 32

    /// A policy; nil fields take the defaults.
    public init(maxConnections: Int? = nil, parallelThresholdBytes: Int64? = nil, maxRunConnections: Int? = nil) {
        self.maxConnections = maxConnections
        self.parallelThresholdBytes = parallelThresholdBytes
        self.maxRunConnections = maxRunConnections
    }
}

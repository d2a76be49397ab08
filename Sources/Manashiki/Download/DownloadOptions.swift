import Foundation

/// Tuning for downloads. The defaults suit phones and servers alike.
public struct DownloadOptions: Sendable, Hashable {
    /// Seconds without a byte before a transfer counts as stalled and is resumed.
    public var idleTimeout: TimeInterval = 60
    /// Resumptions in a row without progress (less than 1 MiB since the previous one) after
    /// transient failures (network errors, 5xx, a body cut short); one that made progress does
    /// not count, so a long download on a link that drops every few minutes still finishes.
    public var maxResumes = 4
    /// Fresh URLs requested after the signed URL expired (403/410) per download.
    public var maxURLRefreshes = 3
    /// Redirects followed from one signed URL.
    public var maxRedirects = 5
    /// The first pause before a resumption, doubled each time (capped at 4 s).
    public var resumeBackoff: TimeInterval = 0.25
    /// The most a whole download may take, resumptions and URL refreshes included; nil (the
    /// default) for no limit. The idle timeout already stops a stalled transfer; this also
    /// stops one that keeps trickling in too slowly to ever finish.
    public var deadline: TimeInterval?
    /// How long a partial download interrupted by anything (a crash, a signal, cancellation,
    /// a failure after bytes arrived) is kept for a later download of the same artifact to
    /// continue; older unused partials are removed. Default 7 days; 0 keeps none.
    public var partialRetention: TimeInterval = 7 * 86_400
    /// A bandwidth budget to draw from; nil (the default) for no limit. Share one limiter
    /// between downloads for one limit over all of them (`BandwidthLimiter`).
    public var rateLimiter: BandwidthLimiter?
    /// The most connections one artifact's transfer opens at once (1: always one stream).
    /// The count adapts: a transfer starts with one connection and adds more only while the
    /// total rate keeps growing (docs/transfers.md); default 16.
    public var maxConnections = 16
    /// Artifacts of at least this many bytes may be fetched over several connections (in
    /// parts of 8 MiB or more with `Range` requests); smaller ones always stream over one.
    /// Default 32 MiB.
    public var parallelThreshold: Int64 = 32 << 20
    /// One connection budget to draw from for all the downloads that share it (a sync run's
    /// `policies.transfer.maxRunConnections`); nil (the default) for none beyond `maxConnections`.
    public var connectionBudget: ConnectionBudget?
    /// Exactly this many connections once the storage host has shown it serves ranges,
    /// instead of adapting (tests and benchmarks only); nil adapts.
    package var fixedConnections: Int?
    /// Called once, before the transfer continues, when a download resumes a kept partial:
    /// with the bytes of it that were hashed again and will not be fetched (the first progress
    /// report follows with the same number). Not called for a download that starts at byte 0.
    /// Options compare equal whatever this closure is.
    public var onResume: (@Sendable (_ bytesKept: Int64) -> Void)? {
        get { resumeObserver.body }
        set { resumeObserver = Observer(newValue) }
    }
    private var resumeObserver = Observer<(@Sendable (Int64) -> Void)?>(nil)
    /// Called when a transfer's bytes are discarded because the whole artifact's SHA-256 did
    /// not match (the contract has only a whole-file digest, so no part can be kept): with how
    /// many bytes were thrown away and how many of them this download fetched. Nothing is
    /// installed; a resumed transfer then starts over once, else `integrityMismatch` is thrown.
    /// Options compare equal whatever this closure is.
    public var onDiscard: (@Sendable (_ bytesDiscarded: Int64, _ bytesFetched: Int64) -> Void)? {
        get { discardObserver.body }
        set { discardObserver = Observer(newValue) }
    }
    private var discardObserver = Observer<(@Sendable (Int64, Int64) -> Void)?>(nil)
    /// Called when a transfer discards the bytes on disk and starts over from byte 0 for a
    /// reason other than a failed digest (which `onDiscard` reports): the object changed on the
    /// storage host (another `ETag`, `Last-Modified` or size), the host refused or ignored the
    /// byte range asked for, or an expired URL was refreshed with no digest to prove it serves
    /// the same bytes. With the reason as a person reads it and the bytes discarded. A transfer
    /// starts over at most twice. Options compare equal whatever this closure is.
    public var onStartOver: (@Sendable (_ reason: String, _ bytesDiscarded: Int64) -> Void)? {
        get { startOverObserver.body }
        set { startOverObserver = Observer(newValue) }
    }
    private var startOverObserver = Observer<(@Sendable (String, Int64) -> Void)?>(nil)
    /// Called when a transfer cannot start because no network the policy allows is available
    /// and it waits for one (`NetworkPolicy.waitsForConnectivity`; URLSession's
    /// `urlSession(_:taskIsWaitingForConnectivity:)` on Apple platforms, at most once per
    /// request). URLSession bounds the wait by its resource timeout (7 days in
    /// `URLSessionTransport`), not the idle timeout: bound it with `deadline`. Not called on Linux (neither libcurl nor FoundationNetworking
    /// waits). Options compare equal whatever this closure is.
    public var onWaitingForNetwork: (@Sendable () -> Void)? {
        get { waitingObserver.body }
        set { waitingObserver = Observer(newValue) }
    }
    private var waitingObserver = Observer<(@Sendable () -> Void)?>(nil)

    /// What an artifact needs beyond the registry's digest (publisher signatures with
    /// `PublisherSignatureCheck`, signed metadata with `TUFArtifactTrust`), every trust required:
    /// consulted with the digest and size the transfer will enforce before any byte is fetched;
    /// a refusal (`TrustRefusal`) is thrown and the installed file stays. Empty (the default):
    /// the registry's digest alone. Options compare equal whatever this is.
    public var trust: ArtifactTrustChain {
        get { trustObserver.body }
        set { trustObserver = Observer(newValue) }
    }
    private var trustObserver = Observer<ArtifactTrustChain>(ArtifactTrustChain([]))

    /// The defaults.
    public init() {}

}

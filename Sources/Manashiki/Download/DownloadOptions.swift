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
    /// Called once, before the transfer continues, when a download resumes a kept partial:
    /// with the bytes of it that were hashed again and will not be fetched (the first progress
    /// report follows with the same number). Not called for a download that starts at byte 0.
    /// Options compare equal whatever this closure is.
    public var onResume: (@Sendable (_ bytesKept: Int64) -> Void)? {
        get { resumeObserver.body }
        set { resumeObserver = Observer(newValue) }
    }
    private var resumeObserver = Observer<(@Sendable (Int64) -> Void)?>(nil)
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

    /// The defaults.
    public init() {}

}

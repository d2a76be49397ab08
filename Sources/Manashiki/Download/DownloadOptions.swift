import Foundation

/// Tuning for downloads. The defaults suit phones and servers alike.
public struct DownloadOptions: Sendable, Hashable {
    /// Seconds without a byte before a transfer counts as stalled and is resumed.
    public var idleTimeout: TimeInterval = 60
    /// Resumptions after transient failures (network errors, 5xx, a body cut short) per download.
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
    /// A bandwidth budget to draw from; nil (the default) for no limit. Share one limiter
    /// between downloads for one limit over all of them (`BandwidthLimiter`).
    public var rateLimiter: BandwidthLimiter?

    /// The defaults.
    public init() {}
}

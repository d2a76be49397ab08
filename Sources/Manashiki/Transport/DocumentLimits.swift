import Foundation

/// How long and how slowly a server may take to send a document: the registry's catalog and
/// records, a mirror's `index.json`, an OCI registry's manifests and tokens. A document is
/// small and read whole, so a server that drips it (2 bytes a second, for ever) is broken or
/// hostile: without these limits a transport's stall timeout (a byte now and then is not a
/// stall) would let it hold a run, and the store's lock, indefinitely.
///
/// ```swift
/// var client = try ManashikiClient(apiKey: key)
/// client.documentLimits = DocumentLimits(timeout: 30, minimumBytesPerSecond: 4096, rateWindow: 5)
/// ```
/// Applied by `HTTPTransport.send(_:)` to a request whose `documentLimits` is set, whatever the
/// transport: failures are `APIError.transport`, naming the limit (`policies.documents` in a
/// sync manifest). Artifacts are not documents: their transfers have their own stall timeout,
/// deadline and resumption (`DownloadOptions`).
public struct DocumentLimits: Sendable, Hashable {
    /// The most seconds one response may take, from the request to its last byte.
    public var timeout: TimeInterval
    /// The fewest bytes per second the body must arrive at, averaged over each `rateWindow`
    /// from the response's head on (0: no minimum).
    public var minimumBytesPerSecond: Int
    /// The window the rate is averaged over, in seconds.
    public var rateWindow: TimeInterval

    /// Limits; the defaults end a drip within a minute (`DocumentLimits.default`).
    public init(timeout: TimeInterval = 60, minimumBytesPerSecond: Int = 1024, rateWindow: TimeInterval = 10) {
        self.timeout = timeout
        self.minimumBytesPerSecond = minimumBytesPerSecond
        self.rateWindow = rateWindow
    }

    /// 60 seconds for a whole document, at least 1 KiB/s over each 10 seconds: a drip ends in
    /// about 10 s, any document within a minute; a 32 MiB catalog needs about 560 KiB/s.
    public static let `default` = DocumentLimits()
}

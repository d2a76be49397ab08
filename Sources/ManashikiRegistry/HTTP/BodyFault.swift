import Foundation

/// How the writer damages a response on the wire (the body-level injected faults).
enum BodyFault: Sendable, Equatable {
    /// Send only `keep` bytes (default: half) then close; with or without the full Content-Length.
    case truncate(keep: Int64?, declareLength: Bool)
    /// Flip every bit of the byte at `offset` in the source (default: the body's middle byte).
    case corrupt(offset: Int64?)
    /// Send `count` bytes past the body (nil: an endless body, close-delimited unless declared).
    case extra(count: Int64?, declareLength: Bool)
    /// No Content-Length: chunked transfer coding, or close-delimited.
    case noContentLength(chunked: Bool)
    /// Send `chunkBytes` every `interval` seconds.
    case slowDrip(chunkBytes: Int, interval: Double)
    /// Send the head and `afterBytes` of body, then nothing until the client gives up.
    case stall(afterBytes: Int64)
    /// Send the head and `afterBytes` of body (or nothing at all when `beforeHead`), then reset.
    case reset(afterBytes: Int64, beforeHead: Bool)
}

import Foundation

/// Why the storage host's answer stopped an attempt without being a final error.
enum StorageSignal: Error {
    /// A 3xx (`status`) with its `Location` header, if any.
    case redirect(status: Int, location: String?)
    /// 403/410: the signed URL expired; resolve a fresh one.
    case expired(status: Int)
    /// A 206 for other bytes than asked: this part's bytes cannot be trusted; start over.
    case restartFromZero
    /// A 200 to a `Range` request while other parts run: the host ignores ranges, so the
    /// transfer continues as one stream.
    case rangeIgnored
    /// 416 to a request for bytes after the end: the file may already be complete.
    case rangeNotSatisfiable
    /// The part reached its end (another connection took the rest): a success.
    case partEnded
    /// The download's overall deadline passed.
    case deadlinePassed
}

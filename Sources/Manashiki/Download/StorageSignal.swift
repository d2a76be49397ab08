import Foundation

/// Why the storage host's answer stopped an attempt without being a final error.
enum StorageSignal: Error {
    /// A 3xx to this URL.
    case redirect(URL)
    /// 403/410: the signed URL expired; resolve a fresh one.
    case expired(status: Int)
    /// The answer cannot continue from our offset (416, or a 206 for other bytes): start over.
    case restartFromZero
    /// 416 to a request for bytes after the end: the file may already be complete.
    case rangeNotSatisfiable
    /// The download's overall deadline passed.
    case deadlinePassed
}

import Foundation
import ManashikiCore

extension FileDigest {
    /// Runs a `FileDigest` read of the file at `path`, its failure as `APIError.fileSystem`
    /// ("Could not read PATH: …").
    package static func hashing<T>(_ path: String, _ body: () throws(ReadError) -> T) throws(APIError) -> T {
        do { return try body() } catch { throw APIError.fileSystem(operation: "read", path: path, code: error.code) }
    }

    /// The digest and size of the file at `url`.
    /// - Throws: `APIError.fileSystem` when it cannot be opened or read.
    package static func sha256(of url: URL) throws(APIError) -> (sha256: String, size: Int64) {
        try hashing(url.path) { () throws(ReadError) in try sha256(ofFileAt: url.path) }
    }
}

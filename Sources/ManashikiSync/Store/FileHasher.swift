import Foundation
import Manashiki
import ManashikiCore

/// SHA-256 of many files on disk at once, each through the one file hasher (`FileDigest`).
enum FileHasher {
    /// The read size.
    static let chunkSize = FileDigest.chunkSize

    /// The digest (64 lowercase hex) and size of the file at `url`.
    /// - Throws: `APIError.fileSystem` if it cannot be read.
    static func sha256(of url: URL) throws -> (sha256: String, size: Int64) { try FileDigest.sha256(of: url) }

    /// Hashes `urls` with at most `maxConcurrent` files at once (default 2, so hashing does not
    /// saturate the disk); a file that cannot be read maps to its error.
    static func sha256(of urls: [URL], maxConcurrent: Int = 2) async -> [URL: Result<String, APIError>] {
        var results: [URL: Result<String, APIError>] = [:]
        await Concurrently.forEach(urls, limit: maxConcurrent, { url -> (URL, Result<String, APIError>) in
            do throws(APIError) { return (url, .success(try FileDigest.sha256(of: url).sha256)) } catch { return (url, .failure(error)) }
        }) { results[$0.0] = $0.1 }
        return results
    }
}

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
        await withTaskGroup(of: (URL, Result<String, APIError>).self) { group in
            var results: [URL: Result<String, APIError>] = [:]
            var pending = urls[...]
            func addNext() {
                guard let url = pending.popFirst() else { return }
                group.addTask {
                    do { return (url, .success(try sha256(of: url).sha256)) } catch let e as APIError {
                        return (url, .failure(e))
                    } catch {
                        return (url, .failure(.fileSystem(operation: "read", path: url.path, code: EIO)))
                    }
                }
            }
            for _ in 0..<max(1, maxConcurrent) { addNext() }
            while let (url, result) = await group.next() {
                results[url] = result
                addNext()
            }
            return results
        }
    }
}

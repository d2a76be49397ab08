import Foundation
import Manashiki
import ManashikiCore

/// SHA-256 of files on disk, read in 4 MiB pieces (never whole files in memory).
public enum FileHasher {
    /// The read size.
    public static let chunkSize = 4 << 20

    /// The digest (64 lowercase hex) and size of the file at `url`.
    /// - Throws: `APIError.fileSystem` if it cannot be read.
    public static func sha256(of url: URL) throws -> (sha256: String, size: Int64) {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch {
            throw APIError.fileSystem(operation: "read", path: url.path, code: POSIX.errnoCode(of: error))
        }
        defer { try? handle.close() }
        let hasher = SHA256Hasher()
        var size: Int64 = 0
        while true {
            let chunk: Data
            do { chunk = try handle.read(upToCount: chunkSize) ?? Data() } catch {
                throw APIError.fileSystem(operation: "read", path: url.path, code: POSIX.errnoCode(of: error))
            }
            if chunk.isEmpty { break }
            hasher.update(chunk)
            size += Int64(chunk.count)
        }
        return (hasher.finalize().hex, size)
    }

    /// Hashes `urls` with at most `maxConcurrent` files at once (default 2, so hashing does not
    /// saturate the disk); a file that cannot be read maps to its error.
    public static func sha256(of urls: [URL], maxConcurrent: Int = 2) async -> [URL: Result<String, APIError>] {
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

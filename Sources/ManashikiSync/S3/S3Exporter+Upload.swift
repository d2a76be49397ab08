import Foundation
import ManashikiCore
import Manashiki
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension S3Exporter {
    /// S3's smallest part (all but the last): 5 MiB.
    public static let minimumPartSize = 5 << 20
    /// S3's most parts in one upload.
    static let maximumParts = 10_000

    /// Uploads one blob from the store's file, verified as it is read: one `PUT` up to the
    /// single-`PUT` limit, a multipart upload above it (aborted when anything fails).
    /// - Returns: the bytes sent.
    static func upload(_ artifact: PinnedArtifact, file: URL, client: S3Client, options: Options,
                       progress: @escaping @Sendable (String, Int64, Int64) -> Void) async throws -> Int64 {
        let fd = open(file.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw SyncFailure(kind: .terminal, message: "the store's file \(file.lastPathComponent) is missing or unreadable; not exported — run \(Remedy.sync)")
        }
        defer { close(fd) }
        // The size by seeking to the end (no stat: not a file-timestamp API in apps' privacy manifests).
        let size = Int64(lseek(fd, 0, SEEK_END))
        if size > artifact.size { throw APIError.bodyTooLong(expected: artifact.size) }
        guard size == artifact.size else { throw APIError.bodyTooShort(expected: artifact.size, received: max(0, size)) }
        let key = client.settings.location.blobKey(artifact.sha256)
        if artifact.size <= Int64(min(options.singlePutLimit, 16 << 20)) {
            let data = try await read(fd, at: 0, count: Int(artifact.size), path: file.path)
            let digest = SHA256Hasher.hash(data).hex
            guard digest == artifact.sha256 else { throw APIError.integrityMismatch(expected: artifact.sha256, actual: digest) }
            try await options.rateLimiter?.acquire(data.count)
            try await client.putObject(key, body: data, sha256: digest, contentType: "application/octet-stream")
            progress(artifact.modelId, artifact.size, artifact.size)
            return artifact.size
        }
        let partSize = max(minimumPartSize, options.partSize, Int((artifact.size + Int64(maximumParts) - 1) / Int64(maximumParts)))
        let uploadId = try await client.createMultipartUpload(key, sha256: artifact.sha256, contentType: "application/octet-stream")
        do {
            let etags = try await uploadParts(fd, path: file.path, artifact: artifact, key: key, uploadId: uploadId, partSize: partSize,
                                              client: client, options: options, progress: progress)
            try await client.completeMultipartUpload(key, uploadId: uploadId, etags: etags)
            return artifact.size
        } catch {
            // Not in the cancelled task: an unstructured task runs even when the export was
            // interrupted (SIGINT, SIGTERM), so no part stays billed.
            await Task { try? await client.abortMultipartUpload(key, uploadId: uploadId) }.value
            throw error
        }
    }

    /// Reads, hashes and uploads the parts in order, `parallelParts` in flight (the memory
    /// they hold); the whole file's SHA-256 is checked before the upload may complete.
    /// - Returns: the parts' ETags in order.
    static func uploadParts(_ fd: Int32, path: String, artifact: PinnedArtifact, key: String, uploadId: String, partSize: Int,
                            client: S3Client, options: Options, progress: @escaping @Sendable (String, Int64, Int64) -> Void) async throws -> [String] {
        let count = Int((artifact.size + Int64(partSize) - 1) / Int64(partSize))
        let whole = SHA256Hasher()
        var etags = [String](repeating: "", count: count)
        let sent = Locked<Int64>(0)
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var running = 0
            for number in 1...count {
                if running >= max(1, options.parallelParts), let (done, etag) = try await group.next() {
                    etags[done - 1] = etag
                    running -= 1
                }
                let offset = Int64(number - 1) * Int64(partSize)
                let data = try await read(fd, at: offset, count: Int(min(Int64(partSize), artifact.size - offset)), path: path)
                whole.update(data)
                let hash = SHA256Hasher.hash(data).hex
                try await options.rateLimiter?.acquire(data.count)
                group.addTask {
                    let etag = try await client.uploadPart(key, uploadId: uploadId, number: number, body: data, sha256: hash)
                    progress(artifact.modelId, sent.withLock { $0 += Int64(data.count); return $0 }, artifact.size)
                    return (number, etag)
                }
                running += 1
            }
            for try await (done, etag) in group { etags[done - 1] = etag }
        }
        let digest = whole.finalize().hex
        guard digest == artifact.sha256 else { throw APIError.integrityMismatch(expected: artifact.sha256, actual: digest) }
        return etags
    }

    /// A small object put whole (a companion of a blob).
    static func putSmall(_ data: Data, key: String, client: S3Client) async throws -> Int64 {
        try await client.putObject(key, body: data, sha256: SHA256Hasher.hash(data).hex, contentType: "application/octet-stream")
        return Int64(data.count)
    }

    /// `count` bytes of `fd` at `offset`, read on a dispatch thread (not the cooperative pool).
    static func read(_ fd: Int32, at offset: Int64, count: Int, path: String) async throws -> Data {
        try await ArtifactFetcher.offPool { _ in
            var data = Data(count: count)
            let got = try data.withUnsafeMutableBytes { try FileCopy.readFully(fd, $0, at: offset, count: count, path: path) }
            guard got == count else { throw APIError.bodyTooShort(expected: offset + Int64(count), received: offset + Int64(got)) }
            return data
        }
    }
}

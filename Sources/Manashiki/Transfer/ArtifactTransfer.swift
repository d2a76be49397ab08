import Foundation
import ManashikiCore

/// One artifact's bytes from the storage host into an open, locked partial file, hashed in
/// order: parts fetched by one or more connections (`PartScheduler`, `TransferContext.fetch`),
/// written in place (`OffsetSink`), hashed as they become contiguous (`InOrderHasher`), the
/// digest compared with the expected one. Installing is the caller's (`ManashikiClient.download`).
///
/// Starts over from byte 0 at most once: when kept bytes turn out wrong (the digest of a
/// resumed transfer does not match) or the object changed under the transfer (a new `ETag`,
/// `Last-Modified` or size, or a 416 for bytes it should have).
final class ArtifactTransfer: Sendable {
    /// What the transfer produced.
    struct Outcome: Sendable, Equatable {
        /// The SHA-256 of the bytes, 64 lowercase hex.
        var sha256: String
        /// Their count.
        var size: Int64
        /// Bytes of a kept partial that were used (0 when it started from 0 or started over).
        var resumedFrom: Int64
    }

    let modelId: String
    let sink: OffsetSink
    let expectedSize: Int64?
    let expectedDigest: String?
    let location: StorageLocation
    let transport: any HTTPTransport
    let options: DownloadOptions
    let progress: (@Sendable (Int64, Int64?) -> Void)?
    private let current = Locked<TransferContext?>(nil)

    init(modelId: String, sink: OffsetSink, expectedSize: Int64?, expectedDigest: String?, location: StorageLocation,
         transport: any HTTPTransport, options: DownloadOptions, progress: (@Sendable (Int64, Int64?) -> Void)?) {
        self.modelId = modelId
        self.sink = sink
        self.expectedSize = expectedSize
        self.expectedDigest = expectedDigest
        self.location = location
        self.transport = transport
        self.options = options
        self.progress = progress
    }

    /// The bytes written to the partial file so far (for keeping it after a failure).
    var written: ByteRangeSet { current.withLock { $0?.scheduler.written } ?? ByteRangeSet() }

    /// Runs the transfer, continuing after the first `kept` bytes already in the file.
    /// - Throws: `APIError.integrityMismatch` when the bytes do not have the expected digest;
    ///   the errors of `TransferContext.fetch`; `CancellationError`.
    func run(keeping kept: Int64) async throws -> Outcome {
        let deadline = options.deadline.map { Deadline(in: $0) }
        var resumedFrom = kept
        var restartedOnce = false
        while true {
            let context = makeContext(deadline: deadline)
            if resumedFrom > 0 { resumedFrom = try adopt(resumedFrom, into: context) }
            do {
                try await runParts(context)
            } catch TransferRestart.objectChanged(let change) {
                guard !restartedOnce else {
                    throw APIError.transport("\(modelId) changed on the storage host while it downloaded (\(change)), again after starting over; try again later")
                }
                restartedOnce = true
                resumedFrom = 0
                try sink.truncate(to: 0)
                continue
            }
            let size = context.scheduler.total ?? context.scheduler.written.prefix
            let computed = try await context.hasher.digest(of: size).hex
            if let expectedDigest, computed != expectedDigest {
                // A continued partial whose kept bytes were wrong (a power loss, a flipped bit on
                // disk): start over from zero, once.
                if resumedFrom > 0 && !restartedOnce {
                    restartedOnce = true
                    resumedFrom = 0
                    try sink.truncate(to: 0)
                    continue
                }
                throw APIError.integrityMismatch(expected: expectedDigest, actual: computed)
            }
            if context.restarted { resumedFrom = 0 } // the kept bytes were not used after all
            return Outcome(sha256: computed, size: size, resumedFrom: resumedFrom)
        }
    }

    private func makeContext(deadline: Deadline?) -> TransferContext {
        let context = TransferContext(
            modelId: modelId, sink: sink, hasher: InOrderHasher(fd: sink.fd, path: sink.path),
            scheduler: PartScheduler(total: expectedSize), progress: TransferProgress(progress),
            validator: ResponseValidator(expectedSize: expectedSize), location: location, transport: transport,
            options: options, deadline: deadline, parallel: false, digestKnown: expectedDigest != nil)
        current.withLock { $0 = context }
        return context
    }

    /// Hashes the kept prefix again from disk, drops anything after it, and reports it.
    private func adopt(_ kept: Int64, into context: TransferContext) throws -> Int64 {
        let read = try context.hasher.adopt(prefix: kept)
        try sink.truncate(to: read)
        context.scheduler.wrote(0..<read, part: 0)
        context.progress.start(at: read, total: expectedSize)
        if read > 0 { options.onResume?(read) }
        progress?(read, expectedSize)
        return read
    }

    /// Runs the connections until every byte is written.
    private func runParts(_ context: TransferContext) async throws {
        try await context.runConnection(splitting: false)
        try Task.checkCancellation()
    }
}

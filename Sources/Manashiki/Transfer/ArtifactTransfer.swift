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
    /// Records the bytes on disk in the partial's sidecar (a parallel transfer's parts), so a
    /// crash keeps them; called before the first out-of-order byte and about every second.
    let checkpoint: @Sendable (ByteRangeSet) -> Void
    private let current = Locked<TransferContext?>(nil)

    init(modelId: String, sink: OffsetSink, expectedSize: Int64?, expectedDigest: String?, location: StorageLocation,
         transport: any HTTPTransport, options: DownloadOptions, progress: (@Sendable (Int64, Int64?) -> Void)?,
         checkpoint: @escaping @Sendable (ByteRangeSet) -> Void = { _ in }) {
        self.checkpoint = checkpoint
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

    /// Whether parts were written out of order (several connections ran).
    var ranOutOfOrder: Bool { current.withLock { $0?.outOfOrder } ?? false }

    /// Runs the transfer, continuing with the bytes a kept partial holds (`kept`: a prefix
    /// written in order, and parts further on).
    /// - Throws: `APIError.integrityMismatch` when the bytes do not have the expected digest;
    ///   the errors of `TransferContext.fetch`; `CancellationError`.
    func run(keeping kept: StorageDirectory.KeptBytes) async throws -> Outcome {
        let deadline = options.deadline.map { Deadline(in: $0) }
        var resumedFrom = kept.count
        var kept = kept
        var restartedOnce = false
        while true {
            let context = makeContext(deadline: deadline)
            if resumedFrom > 0 { resumedFrom = try adopt(kept, into: context) }
            do {
                try await runParts(context)
            } catch TransferRestart.objectChanged(let change) {
                guard !restartedOnce else {
                    throw APIError.transport("\(modelId) changed on the storage host while it downloaded (\(change)), again after starting over; try again later")
                }
                restartedOnce = true
                (resumedFrom, kept) = (0, .init())
                try sink.truncate(to: 0)
                continue
            }
            let size = context.scheduler.total ?? context.scheduler.written.prefix
            let computed = try await context.hasher.digest(of: size).hex
            if let expectedDigest, computed != expectedDigest {
                options.onDiscard?(size, size - resumedFrom)
                // A continued partial whose kept bytes were wrong (a power loss, a flipped bit on
                // disk): start over from zero, once.
                if resumedFrom > 0 && !restartedOnce {
                    restartedOnce = true
                    (resumedFrom, kept) = (0, .init())
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
        let parallel = expectedDigest != nil && (expectedSize ?? 0) >= max(1, options.parallelThreshold)
            && max(options.maxConnections, options.fixedConnections ?? 0) > 1
        let context = TransferContext(
            modelId: modelId, sink: sink, hasher: InOrderHasher(fd: sink.fd, path: sink.path),
            scheduler: PartScheduler(total: expectedSize, partSize: Self.partSize(for: expectedSize ?? 0)),
            progress: TransferProgress(progress), validator: ResponseValidator(expectedSize: expectedSize),
            location: location, transport: transport, options: options, deadline: deadline, parallel: parallel,
            digestKnown: expectedDigest != nil)
        current.withLock { $0 = context }
        return context
    }

    /// The part size of a parallel transfer: 8 MiB, larger for artifacts over 1 GiB (a
    /// 128th of them, at most 64 MiB), so a part takes long enough that a request's round
    /// trip costs little, and there are enough parts for every connection.
    static func partSize(for size: Int64) -> Int64 {
        min(64 << 20, max(8 << 20, (size / 128) & ~Int64((1 << 20) - 1)))
    }

    /// Hashes the kept prefix again from disk (dropping anything after it when the partial
    /// was written in order), takes the kept parts as written, and reports them.
    private func adopt(_ kept: StorageDirectory.KeptBytes, into context: TransferContext) throws -> Int64 {
        let read = try context.hasher.adopt(prefix: kept.prefix)
        if kept.parts.isEmpty { try sink.truncate(to: read) }
        context.scheduler.wrote(0..<read, part: 0)
        let parts = ByteRangeSet(kept.parts)
        context.hasher.adopt(written: parts)
        for range in parts.ranges { context.scheduler.wrote(range, part: 0) }
        let total = read + parts.count
        context.progress.start(at: total, total: expectedSize)
        if total > 0 { options.onResume?(total) }
        progress?(total, expectedSize)
        return total
    }

    private enum Event: Sendable { case connectionEnded, tick }

    /// Runs the connections until every byte is written: one, and more as the
    /// `ConnectionController` decides when parts may run in parallel.
    private func runParts(_ context: TransferContext) async throws {
        let budget = options.connectionBudget
        budget?.takeFirst()
        try await withThrowingTaskGroup(of: Event.self) { group in
            group.addTask {
                defer { budget?.give() }
                try await context.runConnection()
                return .connectionEnded
            }
            var running = 1, respawns = 0
            var controller = ConnectionController(maxConnections: options.maxConnections, fixed: options.fixedConnections)
            var lastCheckpoint = (time: Deadline.now, written: context.scheduler.written)
            if context.parallel { group.addTask { await Self.tick() } }
            while let event = try await group.next() {
                switch event {
                case .connectionEnded:
                    running -= 1
                    guard running == 0 else { break }
                    // Parts given up by a connection that stopped while others ran (a host
                    // that ignored Range) are fetched by one more, as one stream.
                    guard !context.scheduler.isComplete, respawns < 2, !Task.isCancelled else { return group.cancelAll() }
                    respawns += 1
                    running = 1
                    budget?.takeFirst()
                    group.addTask {
                        defer { budget?.give() }
                        try await context.runConnection()
                        return .connectionEnded
                    }
                case .tick:
                    let target = controller.decide(observe(context))
                    if target > running && !context.outOfOrder {
                        // Before the first byte out of order: a crash from now on must find the parts.
                        context.setTarget(target, settled: false)
                        await record(context.scheduler.written)
                    }
                    running += start(target - running, in: &group, context: context, budget: budget)
                    await checkpointIfDue(context, &lastCheckpoint)
                    context.setTarget(target, settled: controller.phase == .settled)
                    group.addTask { await Self.tick() }
                }
            }
        }
        try Task.checkCancellation()
        if !context.scheduler.isComplete {
            throw APIError.transport("the storage host stopped serving \(modelId) before its end; try again")
        }
    }

    /// Writes the sidecar with `written` on the I/O queue (its fsyncs can take long on a busy
    /// disk, and must not hold a thread of the cooperative pool).
    private func record(_ written: ByteRangeSet) async {
        let done = IOCompletion(), checkpoint = self.checkpoint
        OffsetSink.ioQueue.async { done.finish { checkpoint(written) } }
        try? await done.value()
    }

    private static func tick() async -> Event {
        try? await Task.sleep(nanoseconds: ConnectionController.tick)
        return .tick
    }

    private func observe(_ context: TransferContext) -> ConnectionController.Observation {
        ConnectionController.Observation(sample: .init(time: Deadline.now, bytes: context.hasher.progress),
                                         rangesServed: context.rangesServed, rangesIgnored: context.rangesIgnored,
                                         throttled: context.takeThrottled(),
                                         remaining: context.scheduler.remaining)
    }

    /// Starts up to `count` more connections, as the budget allows; returns how many.
    private func start(_ count: Int, in group: inout ThrowingTaskGroup<Event, any Error>, context: TransferContext,
                       budget: ConnectionBudget?) -> Int {
        guard count > 0 else { return 0 }
        var started = 0
        for _ in 0..<count {
            guard budget?.tryTake() ?? true else { break }
            group.addTask {
                defer { budget?.give() }
                try await context.runConnection()
                return .connectionEnded
            }
            started += 1
        }
        return started
    }

    /// Records the written parts about every second while parts run out of order.
    private func checkpointIfDue(_ context: TransferContext, _ last: inout (time: UInt64, written: ByteRangeSet)) async {
        guard context.outOfOrder else { return }
        let now = Deadline.now
        guard now - last.time >= 1_000_000_000 else { return }
        let written = context.scheduler.written
        guard written != last.written else { return }
        await record(written)
        last = (now, written)
    }
}

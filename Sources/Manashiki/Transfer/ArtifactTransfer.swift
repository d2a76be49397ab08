import Foundation
import ManashikiCore

/// One artifact's bytes from the storage host into an open, locked partial file, hashed in
/// order: parts fetched by one or more connections (`TransferContext.runConnection`), written in
/// place (`OffsetSink`), recorded in one ledger (`TransferLedger`: written, hashed, in flight,
/// recorded, connections, progress), the digest compared with the expected one. Installing is
/// the caller's (`ArtifactDownloader`).
///
/// Starts over from byte 0 only when the object changed under the transfer (a new `ETag`,
/// `Last-Modified` or size, a 416 or a wrong range for bytes it should have, a 200 to a `Range`
/// request once bytes are on disk) or when kept bytes turn out wrong (the digest of a resumed
/// transfer does not match): at most `maxStartOvers` times, each reported with the bytes it cost
/// (`DownloadOptions.onStartOver`, `onDiscard`).
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

    /// The most start-overs that discarded bytes in one transfer.
    static let maxStartOvers = 2

    let modelId: String
    let sink: OffsetSink
    let expectedSize: Int64?
    let expectedDigest: String?
    let location: StorageLocation
    let transport: any HTTPTransport
    let options: DownloadOptions
    let ledger: TransferLedger

    /// - Parameters:
    ///   - hashWindow: the most bytes kept in memory beyond the hashed frontier for the hash
    ///     (`TransferLedger`); a quarter of the transport's buffer budget.
    ///   - recorder: writes the partial's sidecar (after flushing the file): the bytes on disk by
    ///     parts, or nil for a partial written in order; nil when nothing is kept.
    init(modelId: String, sink: OffsetSink, expectedSize: Int64?, expectedDigest: String?, location: StorageLocation,
         transport: any HTTPTransport, options: DownloadOptions, progress: (@Sendable (Int64, Int64?) -> Void)?,
         hashWindow: Int = 0, recorder: (@Sendable (ByteRangeSet?) -> Void)? = nil) {
        self.modelId = modelId
        self.sink = sink
        self.expectedSize = expectedSize
        self.expectedDigest = expectedDigest
        self.location = location
        self.transport = transport
        self.options = options
        ledger = TransferLedger(total: expectedSize, partSize: Self.partSize(for: expectedSize ?? 0), fd: sink.fd, path: sink.path,
                                hashWindow: hashWindow, progress: progress, recorder: recorder)
    }

    /// The part size of a parallel transfer: 8 MiB, larger for artifacts over 1 GiB (a
    /// 128th of them, at most 64 MiB), so a part takes long enough that a request's round
    /// trip costs little, and there are enough parts for every connection.
    static func partSize(for size: Int64) -> Int64 {
        min(64 << 20, max(8 << 20, (size / 128) & ~Int64((1 << 20) - 1)))
    }

    /// Runs the transfer, continuing with the bytes a kept partial holds (`kept`: a prefix
    /// written in order, and parts further on). Returns with every sidecar write and hash done,
    /// whatever happened, so the caller may keep or install the partial at once.
    /// - Throws: `APIError.integrityMismatch` when the bytes do not have the expected digest;
    ///   the errors of `TransferContext.fetch`; `CancellationError`.
    func run(keeping kept: StorageDirectory.KeptBytes) async throws -> Outcome {
        let parallel = expectedDigest != nil && (expectedSize ?? 0) >= max(1, options.parallelThreshold)
            && max(options.maxConnections, options.fixedConnections ?? 0) > 1
        let context = TransferContext(modelId: modelId, sink: sink, ledger: ledger, validator: ResponseValidator(expectedSize: expectedSize),
                                      location: location, transport: transport, options: options,
                                      deadline: options.deadline.map { Deadline(in: $0) }, parallel: parallel,
                                      digestKnown: expectedDigest != nil)
        do {
            let outcome = try await run(context, kept: kept)
            await ledger.checkpointIdle()
            return outcome
        } catch {
            await ledger.hashIdle()
            await ledger.checkpointIdle()
            throw error
        }
    }

    private func run(_ context: TransferContext, kept: StorageDirectory.KeptBytes) async throws -> Outcome {
        var resumedFrom = kept.count > 0 ? try adopt(kept) : 0
        while true {
            do {
                try await runParts(context)
            } catch let restart as TransferRestart {
                try await startOver(restart.reason, context)
                resumedFrom = 0
                continue
            }
            let size = ledger.total ?? ledger.written.prefix
            let computed = try await ledger.digest(of: size).hex
            if let expectedDigest, computed != expectedDigest {
                options.onDiscard?(size, size - resumedFrom)
                // A continued partial whose kept bytes were wrong (a power loss, a flipped bit on
                // disk): start over from zero, once.
                if resumedFrom > 0 {
                    try await startOver(.keptBytesWrong, context)
                    resumedFrom = 0
                    continue
                }
                throw APIError.integrityMismatch(expected: expectedDigest, actual: computed)
            }
            if ledger.startOvers.contains(where: { $0.bytesDiscarded > 0 }) { resumedFrom = 0 } // the kept bytes were not used after all
            ledger.finishProgress(size: size)
            return Outcome(sha256: computed, size: size, resumedFrom: resumedFrom)
        }
    }

    /// Starts over from byte 0 for `reason` once every part has stopped, within `maxStartOvers`.
    private func startOver(_ reason: StartOver.Reason, _ context: TransferContext) async throws {
        let earlier = ledger.startOvers.filter { $0.bytesDiscarded > 0 }.count
        guard earlier < Self.maxStartOvers else {
            throw APIError.transport("\(modelId) could not be downloaded: \(reason.text), again after starting over \(earlier) times; try again later")
        }
        _ = try await context.startOver(reason)
    }

    /// Hashes the kept prefix again from disk (dropping anything after it when the partial
    /// was written in order), takes the kept parts as written, and reports them.
    private func adopt(_ kept: StorageDirectory.KeptBytes) throws -> Int64 {
        let read = try ledger.adoptPrefix(kept.prefix)
        if kept.parts.isEmpty { try sink.truncate(to: read) }
        ledger.adopt(parts: ByteRangeSet(kept.parts))
        let total = ledger.written.count
        if total > 0 { options.onResume?(total) }
        ledger.reportProgress()
        return total
    }

    private enum Event: Sendable { case connectionEnded, tick }

    /// Runs the connections until every byte is written: one, and more as the
    /// `ConnectionController` decides when parts may run in parallel.
    private func runParts(_ context: TransferContext) async throws {
        let budget = options.connectionBudget
        budget?.takeFirst()
        try await withThrowingTaskGroup(of: Event.self) { group in
            spawn(in: &group, context: context, budget: budget)
            var respawns = 0
            var controller = ConnectionController(maxConnections: options.maxConnections, fixed: options.fixedConnections)
            if context.parallel { group.addTask { await Self.tick() } }
            while let event = try await group.next() {
                switch event {
                case .connectionEnded:
                    guard ledger.running == 0 else { break }
                    // Parts given up by a connection that stopped while others ran (a host
                    // that ignored Range) are fetched by one more, as one stream.
                    guard !ledger.isComplete, respawns < 2, !Task.isCancelled else { return group.cancelAll() }
                    respawns += 1
                    budget?.takeFirst()
                    spawn(in: &group, context: context, budget: budget)
                case .tick:
                    let target = controller.decide(ledger.observe(at: Deadline.now))
                    let running = ledger.running
                    // Before the first byte out of order: a crash from now on must find the parts.
                    if target > running && !ledger.recordsParts { await ledger.recordByParts() }
                    ledger.setTarget(target, settled: false)
                    start(target - running, in: &group, context: context, budget: budget)
                    ledger.setTarget(target, settled: controller.phase == .settled)
                    ledger.checkpointIfDue()
                    group.addTask { await Self.tick() }
                }
            }
        }
        try Task.checkCancellation()
        if !ledger.isComplete {
            throw APIError.transport("the storage host stopped serving \(modelId) before its end; try again")
        }
    }

    private static func tick() async -> Event {
        try? await Task.sleep(nanoseconds: ConnectionController.tick)
        return .tick
    }

    /// Starts one connection (counted in the ledger from now on).
    private func spawn(in group: inout ThrowingTaskGroup<Event, any Error>, context: TransferContext, budget: ConnectionBudget?) {
        ledger.connectionStarted()
        group.addTask {
            defer { budget?.give() }
            try await context.runConnection()
            return .connectionEnded
        }
    }

    /// Starts up to `count` more connections, as the budget allows.
    private func start(_ count: Int, in group: inout ThrowingTaskGroup<Event, any Error>, context: TransferContext,
                       budget: ConnectionBudget?) {
        guard count > 0 else { return }
        for _ in 0..<count {
            guard budget?.tryTake() ?? true else { break }
            spawn(in: &group, context: context, budget: budget)
        }
    }
}

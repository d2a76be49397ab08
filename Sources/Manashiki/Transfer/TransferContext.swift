import Foundation
import ManashikiCore

/// What every part of one transfer attempt shares: the partial file (`OffsetSink`), the
/// in-order hasher, the part scheduler, the progress, the answer check with the object's
/// identity, the URL, and the limits.
final class TransferContext: Sendable {
    let modelId: String
    let sink: OffsetSink
    let hasher: InOrderHasher
    let scheduler: PartScheduler
    let progress: TransferProgress
    let validator: ResponseValidator
    let location: StorageLocation
    let transport: any HTTPTransport
    let options: DownloadOptions
    let deadline: Deadline?
    /// Whether parts may run in parallel: the first request then asks for `bytes=0-`, so its
    /// answer shows whether the host serves ranges (a 206) or not (a 200: one stream).
    let parallel: Bool
    /// Whether the digest is known, so bytes on disk can be trusted as the artifact's.
    let digestKnown: Bool

    private let identity = Locked<ResponseValidator.Identity?>(nil)
    private let ignoresRange = Locked(false)
    private let connections = Locked(Connections())

    /// The connection count the controller wants and the connections running.
    private struct Connections {
        var target = 1
        var running = 0
        var splitting = false
        var outOfOrder = false
        var rangesServed = false
        var throttled = false
    }
    private let startedOver = Locked(false)

    /// Whether bytes were discarded and the transfer started over from byte 0 at least once.
    var restarted: Bool { startedOver.withLock { $0 } }

    init(modelId: String, sink: OffsetSink, hasher: InOrderHasher, scheduler: PartScheduler, progress: TransferProgress,
         validator: ResponseValidator, location: StorageLocation, transport: any HTTPTransport, options: DownloadOptions,
         deadline: Deadline?, parallel: Bool, digestKnown: Bool) {
        self.modelId = modelId
        self.sink = sink
        self.hasher = hasher
        self.scheduler = scheduler
        self.progress = progress
        self.validator = validator
        self.location = location
        self.transport = transport
        self.options = options
        self.deadline = deadline
        self.parallel = parallel
        connections.withLock { $0.splitting = parallel }
        self.digestKnown = digestKnown
    }

    /// Whether the storage host answered a `Range` request with the whole object: no more
    /// parts are split off, and the transfer finishes as one stream.
    var rangesIgnored: Bool { ignoresRange.withLock { $0 } }

    /// Checks that an answer is of the same object as the first one.
    /// - Throws: `TransferRestart.objectChanged` when it is not.
    func accept(_ seen: ResponseValidator.Identity) throws {
        let change = identity.withLock { first -> String? in
            guard let known = first else {
                first = seen
                return nil
            }
            if let difference = known.difference(from: seen) { return difference }
            first = ResponseValidator.Identity(etag: known.etag ?? seen.etag, lastModified: known.lastModified ?? seen.lastModified,
                                               total: known.total ?? seen.total)
            return nil
        }
        if let change { throw TransferRestart.objectChanged(change) }
    }

    /// Discards every byte written and gives the whole artifact to part `id` as a new part,
    /// when no other part runs; nil (nothing changed) otherwise.
    func startOver(from id: Int, total: Int64?? = .none) async throws -> PartScheduler.Part? {
        guard scheduler.activeCount <= 1 else { return nil }
        await hasher.reset()
        guard let part = scheduler.restart(from: id, total: total) else { return nil }
        identity.withLock { $0 = nil }
        try sink.truncate(to: 0)
        progress.restart()
        startedOver.withLock { $0 = true }
        return part
    }

    /// Records that the host ignored `Range` for part `id` while others ran.
    func rangeIgnored() { ignoresRange.withLock { $0 = true } }

    /// Records that a 206 answered a `Range` request.
    func rangesConfirmed() { connections.withLock { $0.rangesServed = true } }

    /// Whether a 206 answered a `Range` request.
    var rangesServed: Bool { connections.withLock { $0.rangesServed } }

    /// Records a 429 or 503 from the storage host (the controller backs off).
    func throttled() { connections.withLock { $0.throttled = true } }

    /// Whether the storage host throttled since the last call.
    func takeThrottled() -> Bool { connections.withLock { c in defer { c.throttled = false }; return c.throttled } }

    /// Sets the connection count wanted; once it settles on one, the last connection takes
    /// everything left as one part instead of grid parts.
    func setTarget(_ target: Int, settled: Bool) {
        connections.withLock { c in
            c.target = target
            if target > 1 { c.outOfOrder = true }
            if settled && target == 1 { c.splitting = false }
        }
    }

    /// Whether the controller wants one connection now (it has not added any yet, or went
    /// back to one).
    var wantsOne: Bool { connections.withLock { $0.target <= 1 } }

    /// Whether parts are taken on the grid (parts may run in parallel).
    var splitting: Bool { connections.withLock { $0.splitting } }

    /// Whether several connections ran, so parts were written out of order.
    var outOfOrder: Bool { connections.withLock { $0.outOfOrder } }

    /// A connection starts.
    func connectionStarted() { connections.withLock { $0.running += 1 } }

    /// Whether a connection should stop before its next part (more run than wanted); if so,
    /// it is counted as stopped.
    func retires() -> Bool {
        connections.withLock { c in
            guard c.running > max(1, c.target) else { return false }
            c.running -= 1
            return true
        }
    }

    /// A connection ended without retiring.
    func connectionEnded() { connections.withLock { $0.running -= 1 } }
}

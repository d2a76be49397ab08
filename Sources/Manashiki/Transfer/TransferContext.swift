import Foundation
import ManashikiCore

/// What every part of one transfer shares: the ledger (the one record of bytes, hash,
/// connections and progress), the partial file (`OffsetSink`), the answer check with the
/// object's identity, the location, and the limits.
final class TransferContext: Sendable {
    let modelId: String
    let sink: OffsetSink
    let ledger: TransferLedger
    let validator: ResponseValidator
    let location: StorageLocation
    let transport: any HTTPTransport
    let options: DownloadOptions
    let deadline: Deadline?
    /// Whether parts may run in parallel: the first request then asks for a bounded part, so
    /// its answer shows whether the host serves ranges (a 206) or not (a 200: one stream).
    let parallel: Bool
    /// Whether the digest is known, so bytes on disk can be trusted as the artifact's.
    let digestKnown: Bool

    private let identity = Locked<ResponseValidator.Identity?>(nil)

    init(modelId: String, sink: OffsetSink, ledger: TransferLedger, validator: ResponseValidator, location: StorageLocation,
         transport: any HTTPTransport, options: DownloadOptions, deadline: Deadline?, parallel: Bool, digestKnown: Bool) {
        self.modelId = modelId
        self.sink = sink
        self.ledger = ledger
        self.validator = validator
        self.location = location
        self.transport = transport
        self.options = options
        self.deadline = deadline
        self.parallel = parallel
        self.digestKnown = digestKnown
        if parallel { ledger.allowSplitting() }
    }

    /// Checks that an answer is of the same object as the first one.
    /// - Throws: `TransferRestart` (`objectChanged`) when it is not.
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
        if let change { throw TransferRestart(reason: .objectChanged(change)) }
    }

    /// Starts over from byte 0 for `reason` (`TransferLedger.startOver`): the ledger forgets every
    /// byte, the file is cut to nothing, the object's identity is learnt again and the sidecar
    /// says "in order" again. With `part`, that part continues as the whole artifact (nil, and
    /// nothing changed, while other parts run).
    func startOver(_ reason: StartOver.Reason, keeping part: Int? = nil) async throws -> TransferLedger.Part? {
        let whole = await ledger.startOver(reason, keeping: part)
        guard part == nil || whole != nil else { return nil }
        identity.withLock { $0 = nil }
        try sink.truncate(to: 0)
        await ledger.recordInOrderIfNeeded()
        // A digest that failed over kept bytes is reported by `onDiscard` already.
        if let last = ledger.startOvers.last, last.bytesDiscarded > 0, reason != .keptBytesWrong {
            options.onStartOver?(reason.text, last.bytesDiscarded)
        }
        return whole
    }
}

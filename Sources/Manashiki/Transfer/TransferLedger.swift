import Foundation
import ManashikiCore

/// The one record of a transfer (aria2's piece bitfield): which bytes are written (their
/// `pwrite` returned), hashed (in order from byte 0), in flight (the part each connection
/// fetches) and recorded in the partial's sidecar; the connections running; the progress
/// reported. The parts, the hash, the progress, the checkpoints and the connection controller's
/// observation all read it; every change goes through its one lock, and nothing runs under it
/// that calls out (the progress closure, a sidecar write, the hash and read-backs run outside).
///
/// - `TransferLedger+Parts.swift`: which bytes each connection fetches, and what was written.
/// - `TransferLedger+Hashing.swift`: the SHA-256, computed in order as the bytes are written.
/// - `TransferLedger+Progress.swift`: the caller's progress closure.
/// - `TransferLedger+Checkpoint.swift`: when the sidecar records what is on disk.
/// - `TransferLedger+Connections.swift`: the connections, as the controller sees them.
///
/// "Start over" is one method (`startOver(_:keeping:)`) with one reason type (`StartOver`).
final class TransferLedger: @unchecked Sendable {
    /// One connection's assignment: `[start, end)` of the artifact, fetched with one request
    /// (`end` nil: to the end of an artifact of unknown size).
    struct Part: Sendable, Hashable {
        /// Identifies the part while it runs.
        let id: Int
        /// The first byte.
        let start: Int64
        /// The end (exclusive) when it was handed out; it may shrink later (`end(of:)`).
        let end: Int64?
    }

    /// A part being fetched: where its next byte goes, and where it ends.
    struct Active {
        var cursor: Int64
        var end: Int64?
    }

    /// Everything the lock guards. Only the ledger and its extensions touch it.
    struct State {
        var total: Int64?
        var written = ByteRangeSet()
        var active: [Int: Active] = [:]
        var nextID = 0
        /// An artifact of unknown size whose open-ended part reached its end.
        var endReached = false
        var hash = HashState()
        var connections = ConnectionState()
        var checkpoint = CheckpointState()
        var progress = ProgressState()
        /// The start-overs so far, with the bytes each discarded.
        var startOvers: [StartOver] = []
    }

    /// The size of parts once several connections run (the grid they are cut on).
    let partSize: Int64
    /// The partial file, for reading bytes back to hash them.
    let fd: Int32
    /// Its path, for errors.
    let path: String
    /// The caller's progress closure.
    let progressCallback: (@Sendable (Int64, Int64?) -> Void)?
    /// The most bytes kept in memory beyond the hashed frontier for the hash (`+Hashing`).
    let hashWindow: Int
    /// The bytes every transfer sharing it holds for the hash, at most `hashWindow` together
    /// (`heldInProcess`; a test's own for a test).
    let heldPool: Locked<Int>
    /// Writes the partial's sidecar on the I/O queue, after flushing the file: the bytes on disk
    /// by parts, or (nil) the partial as written in order (`+Checkpoint`). Nil: nothing is kept.
    let recorder: (@Sendable (ByteRangeSet?) -> Void)?
    let state: Locked<State>
    /// Updated only by whoever set `state.hash.busy` (the lock orders the hand-overs).
    var digest = SHA256Hasher()

    /// A ledger for an artifact of `total` bytes (nil: unknown) written into `fd`.
    init(total: Int64?, partSize: Int64 = 8 << 20, fd: Int32 = -1, path: String = "", hashWindow: Int = 0,
         progress: (@Sendable (Int64, Int64?) -> Void)? = nil, recorder: (@Sendable (ByteRangeSet?) -> Void)? = nil,
         checkpointInterval: UInt64 = TransferLedger.checkpointInterval, heldPool: Locked<Int> = TransferLedger.heldInProcess) {
        self.heldPool = heldPool
        self.partSize = max(64 << 10, partSize)
        self.fd = fd
        self.path = path
        self.hashWindow = max(0, hashWindow)
        progressCallback = progress
        self.recorder = recorder
        var s = State(total: total)
        s.progress.total = total
        s.checkpoint.dueBytes = self.partSize
        s.checkpoint.interval = checkpointInterval
        state = Locked(s)
    }

    /// Gives back the bytes still held for the hash (a transfer that failed or was cancelled).
    deinit { releaseHeld(state.withLock { $0.hash.heldBytes }) }

    /// The artifact's size, when known.
    var total: Int64? { state.withLock { $0.total } }

    /// The bytes written so far.
    var written: ByteRangeSet { state.withLock { $0.written } }

    /// The bytes still to write (nil: the size is unknown).
    var remaining: Int64? { state.withLock { s in s.total.map { $0 - s.written.count } } }

    /// Whether every byte is written (for an unknown size: the stream reached its end).
    var isComplete: Bool {
        state.withLock { s in
            guard let total = s.total else { return s.endReached && s.active.isEmpty }
            return s.written.count >= total
        }
    }

    /// The start-overs so far.
    var startOvers: [StartOver] { state.withLock { $0.startOvers } }

    /// Discards every byte written and starts over from byte 0 for `reason`: the parts, the
    /// hash (after any hashing in progress ends), the recorded bytes; the progress keeps its
    /// value (it never goes back). With `part`, the whole artifact becomes that part's (a host
    /// that ignored `Range` answered it with the whole object, which continues from byte 0);
    /// nil when other parts run (nothing changed then). Without `part`, every part must have
    /// stopped. The caller truncates the file.
    @discardableResult
    func startOver(_ reason: StartOver.Reason, keeping part: Int? = nil) async -> Part? {
        await hashIdle()
        return state.withLock { s -> Part? in
            if let part {
                guard s.active.keys.allSatisfy({ $0 == part }) else { return nil }
            }
            s.startOvers.append(StartOver(reason: reason, bytesDiscarded: s.written.count))
            releaseHeld(s.hash.heldBytes)
            s.active.removeAll()
            s.written = ByteRangeSet()
            s.endReached = false
            s.hash = HashState()
            s.checkpoint.startOver()
            s.connections.target = 1
            digest = SHA256Hasher()
            return part.map { _ in Self.assign(&s, start: 0, end: s.total) }
        }
    }

    static func assign(_ s: inout State, start: Int64, end: Int64?) -> Part {
        s.nextID += 1
        s.active[s.nextID] = Active(cursor: start, end: end)
        return Part(id: s.nextID, start: start, end: end)
    }
}

/// Why, and at what cost, a transfer discarded its bytes and started over from byte 0.
struct StartOver: Sendable, Equatable {
    /// Why bytes on disk cannot be used.
    enum Reason: Sendable, Equatable {
        /// The object's `ETag`, `Last-Modified` or size changed between two answers.
        case objectChanged(String)
        /// The host answered a `Range` request with the whole object (it ignores ranges).
        case rangeIgnored
        /// The host answered a `Range` request with other bytes than asked (a 206 for another
        /// range), or with 416 for bytes the object should have.
        case rangeRefused
        /// The URL was refreshed and no digest proves the new one serves the same artifact.
        case unprovenURL
        /// The kept bytes of an earlier download made the final digest fail.
        case keptBytesWrong

        /// The reason as a person reads it.
        var text: String {
            switch self {
            case .objectChanged(let change): "the object changed on the storage host (\(change))"
            case .rangeIgnored: "the storage host answered a Range request with the whole object"
            case .rangeRefused: "the storage host did not serve the byte range asked for"
            case .unprovenURL: "a fresh URL was resolved and, without a digest, nothing proves it serves the same bytes"
            case .keptBytesWrong: "the bytes kept from an earlier download did not match the digest"
            }
        }
    }

    /// Why.
    var reason: Reason
    /// The bytes on disk that were discarded.
    var bytesDiscarded: Int64
}

/// A transfer's request to start over, thrown out of a part and handled once by
/// `ArtifactTransfer` (which stops the other parts first).
struct TransferRestart: Error, Equatable {
    var reason: StartOver.Reason
}

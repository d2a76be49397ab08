import Foundation
import ManashikiCore

/// The artifact's SHA-256, computed in order while parts arrive in any order.
///
/// Bytes that arrive exactly at the hashed frontier are hashed in memory while they are
/// written (`claimHash`): a single stream is hashed in the same pass, with no read back. Bytes
/// written further on are kept in memory, up to `hashWindow` bytes, and hashed from there when
/// the frontier reaches them; only what did not fit is read back from the partial file (the page
/// cache, usually), on a thread of its own so no connection waits for the disk. Whoever sets
/// `busy` holds the digest; the lock orders the hand-overs.
extension TransferLedger {
    struct HashState {
        /// Bytes hashed from 0.
        var hashed: Int64 = 0
        /// Whether a caller or the read-back thread holds the digest.
        var busy = false
        /// Written bytes beyond the frontier kept for the hash, by offset.
        var held: [Int64: BytesRef] = [:]
        /// What they cost the window (`heldCost`: a transport buffer each at least).
        var heldBytes = 0
        /// Bytes read back from the file to be hashed (not kept in memory).
        var readBack: Int64 = 0
        var failure: APIError?
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What the holder of the digest hashes next.
    private enum HashStep {
        case memory(BytesRef)
        case readBack(Range<Int64>)
    }

    /// Bytes held for the hash by every transfer of the process (the default `heldPool`).
    /// Held bytes keep the transport's buffers (`ChunkPool`) out, and transfers share a
    /// transport: each one's window alone (a quarter of the budget) would let four concurrent
    /// transfers hold every buffer and wait forever for the frontier's bytes. So all of them
    /// together hold at most the largest window; beyond it, bytes are read back instead.
    static let heldInProcess = Locked(0)

    /// What holding `bytes` costs the window: a whole transport buffer at least, since a short
    /// chunk (a slow link hands over what arrived every 100 ms) keeps its whole `ChunkPool`
    /// buffer out. Counted by bytes, 64 short chunks fit a 4 MiB window and held every buffer
    /// of a 16 MiB pool: the frontier's connection then waited for a buffer forever.
    static func heldCost(_ bytes: BytesRef) -> Int { max(bytes.count, transportBufferSize) }

    /// The size of a transport's body buffer (`CurlTransfer.chunkSize`, Linux; URLSession's
    /// chunks are not pooled, and are counted the same to keep one rule).
    static let transportBufferSize = 512 << 10

    private func reserveHeld(_ count: Int) -> Bool {
        heldPool.withLock { held in
            guard held + count <= hashWindow else { return false }
            held += count
            return true
        }
    }

    func releaseHeld(_ count: Int) {
        guard count > 0 else { return }
        heldPool.withLock { $0 -= count }
    }

    private static let readBackQueue = DispatchQueue(label: "manashiki.hash-read-back", qos: .utility, attributes: .concurrent)

    /// Bytes hashed so far (a contiguous prefix of the artifact).
    var hashedBytes: Int64 { state.withLock { $0.hash.hashed } }

    /// Bytes read back from the partial file to be hashed (the rest were hashed from memory;
    /// a kept prefix, read when adopted, is not counted).
    var bytesReadBack: Int64 { state.withLock { $0.hash.readBack } }

    /// The transfer's verified progress, as the connection controller judges it: the bytes
    /// written less those the hash could take now but has not yet (the backlog between the
    /// frontier and the first gap after it). Bytes beyond that gap count, since the hash cannot
    /// take them yet whatever its speed. While the hash keeps up, this grows as fast as bytes
    /// are written; once the hash is the bottleneck, only as fast as the hash.
    static func verifiedProgress(written: ByteRangeSet, hashed: Int64) -> Int64 {
        let backlog = (written.coveredEnd(from: hashed) ?? hashed) - hashed
        return written.count - max(0, backlog)
    }

    /// Hashes the first `length` bytes already in the file (a kept partial), read back from
    /// disk: nothing stored about them is trusted. Returns how many there were (fewer when the
    /// file is shorter). Call before any part runs.
    func adoptPrefix(_ length: Int64) throws -> Int64 {
        let digest = self.digest
        let read = try FileDigest.hashing(path) { () throws(FileDigest.ReadError) in
            try FileDigest.hash(fd, into: digest, from: 0, limit: length)
        }
        state.withLock { s in
            s.hash.hashed = read
            s.written.insert(0..<read)
        }
        return read
    }

    /// Claims the digest for bytes about to be written at `offset`, when they start at the
    /// frontier and nobody else hashes: the caller then hashes them (`digest.update`) while
    /// they are written, and says so to `didWrite`.
    func claimHash(at offset: Int64) -> Bool {
        state.withLock { s in
            guard !s.hash.busy, s.hash.failure == nil, s.hash.hashed == offset else { return false }
            s.hash.busy = true
            return true
        }
    }

    /// The bytes the caller claimed (`claimHash`) were hashed but not written: the digest is
    /// spoilt; the transfer fails with `error`.
    func hashFailed(_ error: any Error) {
        state.withLock { s in
            s.hash.failure = error as? APIError ?? .fileSystem(operation: "write", path: path, code: EIO)
            s.hash.busy = false
            Self.wakeHashWaiters(&s)
        }
    }

    /// The hash's share of `didWrite`: counts what the caller hashed in memory, keeps bytes
    /// beyond the frontier while the window allows, and claims the digest when the frontier
    /// can move (the caller then runs `drainHash`).
    func hashAfterWrite(_ s: inout State, _ range: Range<Int64>, bytes: BytesRef, hashed: Bool) -> Bool {
        if hashed {
            s.hash.hashed += Int64(range.count)
            s.hash.busy = false
        } else if range.lowerBound >= s.hash.hashed, s.hash.heldBytes + Self.heldCost(bytes) <= hashWindow,
                  reserveHeld(Self.heldCost(bytes)) {
            s.hash.held[range.lowerBound] = bytes
            s.hash.heldBytes += Self.heldCost(bytes)
        }
        guard !s.hash.busy, s.hash.failure == nil, let end = s.written.coveredEnd(from: s.hash.hashed), end > s.hash.hashed else {
            if !s.hash.busy { Self.wakeHashWaiters(&s) }
            return false
        }
        s.hash.busy = true
        return true
    }

    /// Run by the holder of the digest: hashes from the frontier until a gap, from memory
    /// where the bytes were kept, else by reading them back on the read-back thread.
    func drainHash() {
        while let step = nextHashStep() {
            switch step {
            case .memory(let bytes):
                bytes.withBytes { digest.update($0) }
                state.withLock { $0.hash.hashed += Int64(bytes.count) }
            case .readBack(let range):
                Self.readBackQueue.async {
                    self.readBack(range)
                    self.drainHash()
                }
                return
            }
        }
    }

    private func nextHashStep() -> HashStep? {
        state.withLock { s -> HashStep? in
            if s.hash.failure == nil, let bytes = s.hash.held.removeValue(forKey: s.hash.hashed) {
                s.hash.heldBytes -= Self.heldCost(bytes)
                releaseHeld(Self.heldCost(bytes))
                return .memory(bytes)
            }
            guard s.hash.failure == nil, let end = s.written.coveredEnd(from: s.hash.hashed), end > s.hash.hashed else {
                s.hash.busy = false
                Self.wakeHashWaiters(&s)
                return nil
            }
            let nextHeld = s.hash.held.keys.filter { $0 > s.hash.hashed }.min() ?? end
            return .readBack(s.hash.hashed..<min(end, nextHeld))
        }
    }

    private func readBack(_ range: Range<Int64>) {
        do {
            let digest = self.digest
            let read = try FileDigest.hashing(path) { () throws(FileDigest.ReadError) in
                try FileDigest.hash(fd, into: digest, from: range.lowerBound, limit: Int64(range.count))
            }
            state.withLock { s in
                s.hash.hashed += read
                s.hash.readBack += read
                if read < Int64(range.count) { s.hash.failure = .fileSystem(operation: "read", path: path, code: EIO) }
            }
        } catch {
            state.withLock { $0.hash.failure = error }
        }
    }

    private static func wakeHashWaiters(_ s: inout State) {
        let waiters = s.hash.idleWaiters
        s.hash.idleWaiters = []
        for w in waiters { w.resume() }
    }

    /// Waits until nobody holds the digest.
    func hashIdle() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.hash.busy { s.hash.idleWaiters.append(c) }
                return !s.hash.busy
            }
            if now { c.resume() }
        }
    }

    /// The digest of the first `total` bytes, once the frontier reaches them (every byte must
    /// have been written).
    /// - Throws: `APIError.fileSystem` when reading back failed; `transport` when bytes before
    ///   `total` were never written (a bug, never a wrong digest).
    func digest(of total: Int64) async throws -> ArtifactDigest {
        while true {
            if let start = state.withLock({ s -> Bool? in
                guard !s.hash.busy else { return nil }
                guard s.hash.failure == nil, let end = s.written.coveredEnd(from: s.hash.hashed), end > s.hash.hashed else { return false }
                s.hash.busy = true
                return true
            }), start {
                drainHash()
            }
            await hashIdle()
            let (hashed, failure) = state.withLock { ($0.hash.hashed, $0.hash.failure) }
            if let failure { throw failure }
            if hashed >= total { return digest.finalize() }
            let stuck = state.withLock { s in !s.hash.busy && (s.written.coveredEnd(from: s.hash.hashed) ?? s.hash.hashed) <= s.hash.hashed }
            if stuck { throw APIError.transport("the transfer ended with bytes \(hashed)…\(total) of the artifact missing") }
        }
    }
}

import Foundation
import ManashikiCore

/// The artifact's SHA-256, computed in order while parts arrive in any order.
///
/// Bytes that arrive exactly at the hashed frontier are hashed in memory while they are
/// written (`hashIfNext`): a single stream is hashed in the same pass as today, with no read
/// back. Bytes written further on are hashed later, read back from the partial file (the page
/// cache, usually) in `FileDigest` pieces once the frontier reaches them (`wrote`), on a
/// thread of its own so no connection waits for it. Memory stays flat: nothing is held for
/// the hash beyond one read buffer.
final class InOrderHasher: @unchecked Sendable {
    private struct State {
        /// Bytes hashed from 0.
        var hashed: Int64 = 0
        /// Bytes on disk (written), hashed or not.
        var written = ByteRangeSet()
        /// Whether a call or the read-back thread is updating `hasher`.
        var busy = false
        var failure: APIError?
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let fd: Int32
    private let path: String
    private let state = Locked(State())
    /// Updated only by whoever set `busy` (the lock orders the hand-overs).
    private var hasher = SHA256Hasher()

    private static let readBackQueue = DispatchQueue(label: "manashiki.hash-read-back", qos: .utility, attributes: .concurrent)

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    /// Bytes hashed so far (a contiguous prefix of the artifact).
    var hashed: Int64 { state.withLock { $0.hashed } }

    /// The transfer's progress as the connection controller judges it (`progress(written:hashed:)`).
    var progress: Int64 { state.withLock { Self.progress(written: $0.written, hashed: $0.hashed) } }

    /// The bytes on disk (`written`), less those the hash could take now but has not yet: the
    /// backlog between the frontier (`hashed`) and the first gap after it. Bytes beyond that
    /// gap count, since the hash cannot take them yet whatever its speed. While the hash keeps
    /// up, this grows as fast as bytes are written; once the hash is the bottleneck (a fast
    /// link, a slow CPU), only as fast as the hash, so a connection added then shows no gain.
    static func progress(written: ByteRangeSet, hashed: Int64) -> Int64 {
        let backlog = (written.coveredEnd(from: hashed) ?? hashed) - hashed
        return written.count - max(0, backlog)
    }

    /// Hashes the first `length` bytes already in the file (a kept partial), read back from
    /// disk: nothing stored about them is trusted. Returns how many there were (fewer when the
    /// file is shorter). Call before any part runs.
    func adopt(prefix length: Int64) throws -> Int64 {
        let read = try FileDigest.hashing(path) { () throws(FileDigest.ReadError) in
            try FileDigest.hash(fd, into: hasher, from: 0, limit: length)
        }
        state.withLock { s in
            s.hashed = read
            s.written.insert(0..<read)
        }
        return read
    }

    /// Records bytes already on disk beyond the prefix (a kept partial's completed parts);
    /// they are read back and hashed when the frontier reaches them.
    func adopt(written ranges: ByteRangeSet) {
        state.withLock { s in for r in ranges.ranges { s.written.insert(r) } }
    }

    /// Hashes `bytes` now if they start at the frontier and nobody else is hashing; returns
    /// whether it did. The caller writes them too (`wrote` follows).
    @discardableResult
    func hashIfNext(_ bytes: UnsafeRawBufferPointer, at offset: Int64) -> Bool {
        let claimed = state.withLock { s -> Bool in
            guard !s.busy, s.failure == nil, s.hashed == offset else { return false }
            s.busy = true
            return true
        }
        guard claimed else { return false }
        hasher.update(bytes)
        state.withLock { s in
            s.hashed += Int64(bytes.count)
            s.busy = false
        }
        readBackIfNeeded()
        return true
    }

    /// Records that `range` is on disk; starts reading back what the frontier can now reach.
    func wrote(_ range: Range<Int64>) {
        state.withLock { $0.written.insert(range) }
        readBackIfNeeded()
    }

    private func readBackIfNeeded() {
        let start = state.withLock { s -> Bool in
            guard !s.busy, s.failure == nil, let end = s.written.coveredEnd(from: s.hashed), end > s.hashed else {
                if !s.busy { Self.wake(&s) }
                return false
            }
            s.busy = true
            return true
        }
        if start { Self.readBackQueue.async { self.readBack() } }
    }

    /// Runs with `busy` set: hashes written bytes from the frontier until a gap.
    private func readBack() {
        while true {
            let next = state.withLock { s -> Range<Int64>? in
                guard s.failure == nil, let end = s.written.coveredEnd(from: s.hashed), end > s.hashed else {
                    s.busy = false
                    Self.wake(&s)
                    return nil
                }
                return s.hashed..<end
            }
            guard let range = next else { return }
            do {
                let read = try FileDigest.hashing(path) { () throws(FileDigest.ReadError) in
                    try FileDigest.hash(fd, into: hasher, from: range.lowerBound, limit: range.upperBound - range.lowerBound)
                }
                state.withLock { s in
                    s.hashed += read
                    if read < range.upperBound - range.lowerBound {
                        s.failure = .fileSystem(operation: "read", path: path, code: EIO)
                    }
                }
            } catch {
                state.withLock { $0.failure = error }
            }
        }
    }

    private static func wake(_ s: inout State) {
        let waiters = s.idleWaiters
        s.idleWaiters = []
        for w in waiters { w.resume() }
    }

    /// Waits until nothing is being hashed.
    func idle() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.busy { s.idleWaiters.append(c) }
                return !s.busy
            }
            if now { c.resume() }
        }
    }

    /// The digest of the first `total` bytes, once the frontier reaches them (every byte
    /// must have been written).
    /// - Throws: `APIError.fileSystem` when reading back failed; `invalidResponse` when bytes
    ///   before `total` were never written (a bug, never a wrong digest).
    func digest(of total: Int64) async throws -> ArtifactDigest {
        readBackIfNeeded()
        while true {
            await idle()
            let (hashed, failure, busy) = state.withLock { ($0.hashed, $0.failure, $0.busy) }
            if let failure { throw failure }
            if hashed >= total { return hasher.finalize() }
            if !busy {
                readBackIfNeeded()
                if !state.withLock({ $0.busy }) {
                    throw APIError.transport("the transfer ended with bytes \(hashed)…\(total) of the artifact missing")
                }
            }
        }
    }

    /// Forgets everything (the transfer starts over from byte 0). Waits for a read-back first.
    func reset() async {
        await idle()
        hasher = SHA256Hasher()
        state.withLock { s in
            s.hashed = 0
            s.written = ByteRangeSet()
            s.failure = nil
        }
    }
}

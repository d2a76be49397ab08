import Foundation

/// The received-body buffers of one transport, shared by all its requests and capped: at most
/// `capacity` buffers of `size` bytes exist at once, whatever the number of connections. A
/// request that needs a buffer while all are out (filling, queued for a consumer, or being
/// consumed) waits until one comes back: backpressure that closes the socket's window, never a
/// larger pool. Buffers are handed to consumers as `Data` without a copy and return to the pool
/// when the last `Data` holding one goes away. A transfer copies each received byte once, into
/// a buffer, and allocates nothing per chunk once warm; when no request is using the pool, its
/// idle buffers are freed.
final class ChunkPool: @unchecked Sendable {
    /// The size of every buffer.
    let size: Int
    /// The most buffers out at once: `budget / size`, at least 1.
    let capacity: Int

    // Guarded by `condition` (an `NSCondition`: a request's thread waits on it for a buffer).
    private let condition = NSCondition()
    private var idle: [UnsafeMutableRawPointer] = []
    private var out = 0
    private var peakOut = 0
    private var waited = 0
    private var users = 0

    /// A pool of `budget / size` buffers (at least one).
    init(size: Int, budget: Int) {
        self.size = size
        capacity = max(1, budget / size)
    }

    deinit { idle.forEach { $0.deallocate() } }

    /// The bytes this pool may hold at most.
    var budget: Int { capacity * size }

    /// Bytes in buffers handed out now (filling, queued, or held by a consumer).
    var heldBytes: Int { locked { out * size } }

    /// The most bytes ever held at once.
    var peakHeldBytes: Int { locked { peakOut * size } }

    /// How many times a request waited because every buffer was out.
    var waitCount: Int { locked { waited } }

    /// Buffers waiting to be reused.
    var idleCount: Int { locked { idle.count } }

    /// Requests using the pool now (`begin()` without `end()` yet).
    var userCount: Int { locked { users } }

    /// A request starts using the pool.
    func begin() { locked { users += 1 } }

    /// A request stopped using the pool; the last one frees the idle buffers.
    func end() {
        let freed: [UnsafeMutableRawPointer] = locked {
            users -= 1
            guard users == 0 else { return [] }
            defer { idle = [] }
            return idle
        }
        freed.forEach { $0.deallocate() }
    }

    /// A buffer of `size` bytes, reused or new; waits while `capacity` are out. Nil when
    /// `stop()` turns true while waiting (the request was cancelled: call `wake()` then).
    func take(unless stop: () -> Bool) -> UnsafeMutableRawPointer? {
        condition.lock()
        defer { condition.unlock() }
        if out >= capacity { waited += 1 }
        while out >= capacity {
            if stop() { return nil }
            condition.wait()
        }
        return claim()
    }

    /// A buffer without waiting, nil when all are out.
    func tryTake() -> UnsafeMutableRawPointer? {
        locked { out < capacity ? claim() : nil }
    }

    /// Hands out a buffer; called under the lock with one available.
    private func claim() -> UnsafeMutableRawPointer {
        out += 1
        peakOut = max(peakOut, out)
        return idle.popLast() ?? .allocate(byteCount: size, alignment: 4096)
    }

    /// Returns a buffer (one handed out by `take`).
    func give(_ buffer: UnsafeMutableRawPointer) {
        let keep: Bool = locked {
            out -= 1
            // Every waiter, not one: a waiter whose request was cancelled leaves without the
            // buffer, and a single signal it took would leave the others asleep beside a free
            // buffer (every connection of a transfer stood still so, under load).
            condition.broadcast()
            guard users > 0 else { return false }
            idle.append(buffer)
            return true
        }
        if !keep { buffer.deallocate() }
    }

    /// Wakes every request waiting for a buffer, so each checks its `stop` again.
    func wake() { locked { condition.broadcast() } }

    /// The first `count` bytes of `buffer` as `Data` that gives the buffer back when released.
    /// The pool stays alive as long as any such `Data` does.
    func data(_ buffer: UnsafeMutableRawPointer, count: Int) -> Data {
        Data(bytesNoCopy: buffer, count: count, deallocator: .custom { [self] pointer, _ in give(pointer) })
    }

    private func locked<R>(_ body: () -> R) -> R {
        condition.lock()
        defer { condition.unlock() }
        return body()
    }
}

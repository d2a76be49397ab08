import Foundation

/// Reusable fixed-size buffers for received body bytes, handed to consumers as `Data` without
/// a copy: when the last `Data` holding a buffer goes away, the buffer returns to the pool
/// (up to `keep` buffers are kept; more are freed). A transfer copies each received byte once,
/// into a buffer, and allocates nothing per chunk once warm.
final class ChunkPool: @unchecked Sendable {
    /// The size of every buffer.
    let size: Int
    private let keep: Int
    private let lock = NSLock()
    private var free: [UnsafeMutableRawPointer] = []

    init(size: Int, keep: Int) {
        self.size = size
        self.keep = keep
    }

    deinit { free.forEach { $0.deallocate() } }

    /// Buffers waiting to be reused.
    var idleCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return free.count
    }

    /// A buffer of `size` bytes, reused or new.
    func take() -> UnsafeMutableRawPointer {
        lock.lock()
        let reused = free.popLast()
        lock.unlock()
        return reused ?? .allocate(byteCount: size, alignment: 4096)
    }

    /// Returns a buffer that was never handed out.
    func give(_ buffer: UnsafeMutableRawPointer) {
        lock.lock()
        if free.count < keep {
            free.append(buffer)
            lock.unlock()
        } else {
            lock.unlock()
            buffer.deallocate()
        }
    }

    /// The first `count` bytes of `buffer` as `Data` that gives the buffer back when released.
    /// The pool stays alive as long as any such `Data` does.
    func data(_ buffer: UnsafeMutableRawPointer, count: Int) -> Data {
        Data(bytesNoCopy: buffer, count: count, deallocator: .custom { [self] pointer, _ in give(pointer) })
    }
}

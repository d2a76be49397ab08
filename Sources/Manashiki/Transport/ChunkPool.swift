import Foundation
import ManashikiCore

/// Reusable fixed-size buffers for received body bytes, handed to consumers as `Data` without
/// a copy: when the last `Data` holding a buffer goes away, the buffer returns to the pool
/// (up to `keep` buffers are kept; more are freed). A transfer copies each received byte once,
/// into a buffer, and allocates nothing per chunk once warm.
final class ChunkPool: @unchecked Sendable {
    /// The size of every buffer.
    let size: Int
    private let keep: Int
    private let free = Locked<[UnsafeMutableRawPointer]>([])

    init(size: Int, keep: Int) {
        self.size = size
        self.keep = keep
    }

    deinit { free.withLock { $0.forEach { $0.deallocate() } } }

    /// Buffers waiting to be reused.
    var idleCount: Int { free.withLock { $0.count } }

    /// A buffer of `size` bytes, reused or new.
    func take() -> UnsafeMutableRawPointer {
        free.withLock { $0.popLast() } ?? .allocate(byteCount: size, alignment: 4096)
    }

    /// Returns a buffer that was never handed out.
    func give(_ buffer: UnsafeMutableRawPointer) {
        let kept = free.withLock { free in
            guard free.count < keep else { return false }
            free.append(buffer)
            return true
        }
        if !kept { buffer.deallocate() }
    }

    /// The first `count` bytes of `buffer` as `Data` that gives the buffer back when released.
    /// The pool stays alive as long as any such `Data` does.
    func data(_ buffer: UnsafeMutableRawPointer, count: Int) -> Data {
        Data(bytesNoCopy: buffer, count: count, deallocator: .custom { [self] pointer, _ in give(pointer) })
    }
}

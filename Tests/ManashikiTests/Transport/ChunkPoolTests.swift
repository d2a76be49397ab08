import Foundation
import Testing
@testable import Manashiki

@Suite("ChunkPool")
struct ChunkPoolTests {
    @Test("a buffer handed out as Data comes back when the Data is released, and is reused")
    func reuse() {
        let pool = ChunkPool(size: 4096, budget: 2 * 4096)
        pool.begin()
        defer { pool.end() }
        let a = pool.take(unless: { false })!, b = pool.take(unless: { false })!
        #expect(a != b)
        do {
            let da = pool.data(a, count: 100)
            let db = pool.data(b, count: 4096)
            #expect(da.count == 100 && db.count == 4096)
            #expect(pool.idleCount == 0)
            #expect(pool.heldBytes == 2 * 4096)
        }
        // Both released: both kept for reuse.
        #expect(pool.idleCount == 2)
        #expect(pool.heldBytes == 0)
        let c = pool.take(unless: { false })!
        #expect(c == a || c == b)
        #expect(pool.idleCount == 1)
        pool.give(c)
    }

    @Test("the capacity is the budget in whole buffers, at least one")
    func capacity() {
        #expect(ChunkPool(size: 512 << 10, budget: 16 << 20).capacity == 32)
        #expect(ChunkPool(size: 512 << 10, budget: (1 << 20) + 1).capacity == 2)
        #expect(ChunkPool(size: 512 << 10, budget: 0).capacity == 1)
    }

    @Test("a buffer given back while no request uses the pool is freed, not kept")
    func freedWhenUnused() {
        let pool = ChunkPool(size: 64, budget: 128)
        let p = pool.tryTake()!
        pool.give(p)
        #expect(pool.idleCount == 0)
        #expect(pool.heldBytes == 0)
    }

    @Test("bytes written into a buffer are what the Data shows, without a copy")
    func noCopy() {
        let pool = ChunkPool(size: 64, budget: 128)
        let p = pool.tryTake()!
        p.storeBytes(of: 0xAB, toByteOffset: 3, as: UInt8.self)
        let d = pool.data(p, count: 64) // (Data copies up to 14 bytes inline; chunks are far larger)
        #expect(d[3] == 0xAB)
        d.withUnsafeBytes { #expect($0.baseAddress == UnsafeRawPointer(p)) }
    }
}

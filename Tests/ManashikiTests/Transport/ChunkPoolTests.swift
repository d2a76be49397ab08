import Foundation
import Testing
@testable import Manashiki

@Suite("ChunkPool")
struct ChunkPoolTests {
    @Test("a buffer handed out as Data comes back when the Data is released; beyond keep, buffers are freed")
    func reuse() {
        let pool = ChunkPool(size: 4096, keep: 1)
        let a = pool.take(), b = pool.take()
        #expect(a != b)
        do {
            let da = pool.data(a, count: 100)
            let db = pool.data(b, count: 4096)
            #expect(da.count == 100 && db.count == 4096)
            #expect(pool.idleCount == 0)
        }
        // Both released: one kept, the other freed.
        #expect(pool.idleCount == 1)
        let c = pool.take()
        #expect(c == a || c == b)
        #expect(pool.idleCount == 0)
        pool.give(c)
        #expect(pool.take() == c)
        pool.give(c)
    }

    @Test("bytes written into a buffer are what the Data shows, without a copy")
    func noCopy() {
        let pool = ChunkPool(size: 64, keep: 2)
        let p = pool.take()
        p.storeBytes(of: 0xAB, toByteOffset: 3, as: UInt8.self)
        let d = pool.data(p, count: 64) // (Data copies up to 14 bytes inline; chunks are far larger)
        #expect(d[3] == 0xAB)
        d.withUnsafeBytes { #expect($0.baseAddress == UnsafeRawPointer(p)) }
    }
}

import Foundation
import Testing
@testable import Manashiki
import ManashikiCore
import ManashikiRegistry
import ManashikiTestSupport

/// The transport's received-body memory is one pool per transport, capped at its
/// `bufferBudget` whatever the number of connections: these tests count the bytes the pool
/// holds (buffers being filled, queued, or held by a consumer), never time or RSS.
@Suite("Transfer memory: one capped buffer pool per transport")
struct TransferMemoryTests {
    @Test("with every buffer out, a request waits for one to come back; the pool never holds more than its budget")
    func poolWaits() async throws {
        let pool = ChunkPool(size: 4096, budget: 3 * 4096)
        pool.begin()
        let taken = (0..<3).compactMap { _ in pool.tryTake() }
        #expect(taken.count == 3)
        #expect(pool.tryTake() == nil)
        #expect(pool.heldBytes == pool.budget)
        // A fourth request (on a thread of its own, as a curl transfer is) waits …
        let got = Locked<UnsafeMutableRawPointer?>(nil)
        let waiter = Thread {
            let buffer = pool.take(unless: { false }) // (not under `got`'s lock: the test reads it meanwhile)
            got.withLock { $0 = buffer }
        }
        waiter.start()
        while pool.waitCount == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(got.current == nil)
        #expect(pool.heldBytes == pool.budget)
        // … until a buffer is given back, and then gets exactly that one.
        pool.give(taken[0])
        while got.current == nil { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(got.current == taken[0])
        #expect(pool.peakHeldBytes == pool.budget)
        for buffer in taken.dropFirst() + [got.current!] { pool.give(buffer) }
        #expect(pool.heldBytes == 0)
        #expect(pool.idleCount == 3)
        pool.end()
        #expect(pool.idleCount == 0) // the last user gone: the idle buffers are freed
    }

    @Test("a request waiting for a buffer stops when it is cancelled")
    func cancelledWait() async throws {
        let pool = ChunkPool(size: 4096, budget: 4096)
        let only = try #require(pool.tryTake())
        let stop = Locked(false)
        let result = Locked<Bool?>(nil)
        let waiter = Thread {
            let buffer = pool.take(unless: { stop.current })
            result.withLock { $0 = buffer != nil }
        }
        waiter.start()
        while pool.waitCount == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        stop.withLock { $0 = true }
        pool.wake()
        while result.current == nil { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(result.current == false)
        #expect(pool.heldBytes == 4096)
        pool.give(only)
    }

    #if os(Linux)
    @Test("six concurrent requests with slow consumers share a 2 MiB budget: all bytes arrive intact, the pool never held more, and requests waited for it")
    func sharedBudget() async throws {
        let f = try RegistryFixture(size: 6 << 20 | 4321)
        let url = try #require(f.registry.signedDownloadURL(modelId: "tiny"))
        let transport = try CurlTransport(bufferBudget: 2 << 20)
        #expect(transport.bufferBudget == 2 << 20)
        let consumers = (0..<6).map { _ in HoldingConsumer(pool: transport.pool) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for consumer in consumers {
                group.addTask { try await transport.stream(HTTPRequest(url: url), to: consumer) }
            }
            try await group.waitForAll()
        }
        let digest = f.registry.sha256(modelId: "tiny")
        for consumer in consumers {
            #expect(consumer.bytes == 6 << 20 | 4321)
            #expect(consumer.hasher.finalize().hex == digest)
        }
        // Demand (6 requests × a chunk filling, a queue and one being consumed) exceeded the
        // budget, so the cap was what bounded the memory:
        #expect(transport.pool.waitCount > 0)
        #expect(transport.pool.peakHeldBytes <= 2 << 20)
        #expect(consumers.allSatisfy { $0.mostHeldSeen <= 2 << 20 })
        #expect(transport.pool.heldBytes == 0)
        #expect(transport.pool.idleCount == 0)
    }

    @Test("a parallel download through a 1 MiB budget (two chunks for eight connections) completes verified, within the budget")
    func parallelDownloadWithinBudget() async throws {
        let size = 40 << 20 | 99
        let f = try RegistryFixture(size: size)
        let transport = try CurlTransport(bufferBudget: 1 << 20)
        var options = DownloadOptions()
        options.parallelThreshold = 1 << 20
        options.maxConnections = 8
        options.fixedConnections = 8
        let model = try await f.client(transport: transport).downloadModel("tiny", session: nil, expecting: nil, options: options)
        #expect(model.verified && model.size == Int64(size))
        #expect(try Data(contentsOf: f.installed) == f.registry.artifactBytes(modelId: "tiny"))
        let ranged = f.registry.requestLog().filter { $0.origin == .storage && $0.header("Range") != nil }
        #expect(ranged.count >= 2)
        #expect(transport.pool.waitCount > 0)
        #expect(transport.pool.peakHeldBytes <= 1 << 20)
        #expect(transport.pool.heldBytes == 0)
    }
    #endif
}

#if os(Linux)
/// Hashes what it receives, slowly (so buffers pile up), and records the most bytes the
/// transport's pool held while a chunk was in its hands.
final class HoldingConsumer: HTTPBodyConsumer, @unchecked Sendable {
    let hasher = SHA256Hasher()
    let pool: ChunkPool
    var bytes = 0
    var mostHeldSeen = 0

    init(pool: ChunkPool) { self.pool = pool }

    func receive(head: HTTPResponseHead) async throws {}
    func receive(chunk: Data) async throws {
        bytes += chunk.count
        chunk.withUnsafeBytes { hasher.update($0) }
        mostHeldSeen = max(mostHeldSeen, pool.heldBytes)
        try await Task.sleep(nanoseconds: 2_000_000)
    }
}
#endif

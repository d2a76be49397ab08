import Foundation
import Testing
@testable import Manashiki
import ManashikiRegistry
import ManashikiCore
import ManashikiTestSupport

#if os(Linux)
/// A consumer that records what it gets, optionally slowly, optionally throwing.
final class RecordingConsumer: HTTPBodyConsumer, @unchecked Sendable {
    var heads: [HTTPResponseHead] = []
    var bytes = 0
    var delayPerChunk: UInt64 = 0
    var throwAfterBytes: Int?

    func receive(head: HTTPResponseHead) async throws { heads.append(head) }
    func receive(chunk: Data) async throws {
        bytes += chunk.count
        if delayPerChunk > 0 { try await Task.sleep(nanoseconds: delayPerChunk) }
        if let limit = throwAfterBytes, bytes >= limit { throw APIError.bodyTooLong(expected: Int64(limit)) }
    }
}

/// A consumer that hashes what it gets and records each chunk's size.
final class BufferRecordingConsumer: HTTPBodyConsumer, @unchecked Sendable {
    let hasher = SHA256Hasher()
    var bytes = 0
    var sizes: [Int] = []

    func receive(head: HTTPResponseHead) async throws {}
    func receive(chunk: Data) async throws {
        bytes += chunk.count
        sizes.append(chunk.count)
        chunk.withUnsafeBytes { hasher.update($0) }
    }
}

@Suite("CurlTransport over loopback")
struct CurlTransportTests {
    @Test("a slow consumer never has more than the bound queued, and every byte arrives in order")
    func backpressure() async throws {
        let f = try RegistryFixture(size: 24 << 20)
        let url = try #require(f.registry.signedDownloadURL(modelId: "tiny"))
        let transfer = CurlTransfer(request: HTTPRequest(url: url), maxQueuedBytes: 2 << 20, connectTimeout: 10)
        let consumer = RecordingConsumer()
        consumer.delayPerChunk = 5_000_000 // the consumer is much slower than loopback
        transfer.start()
        try await transfer.deliver(to: consumer)
        #expect(consumer.bytes == 24 << 20)
        #expect(consumer.heads.map(\.status) == [200])
        // The bound plus the one chunk that may be handed over while the queue is at the bound.
        #expect(transfer.peakQueuedBytes <= (2 << 20) + CurlTransfer.chunkSize)
    }

    @Test("the body arrives in chunks of at most 512 KiB, every byte intact")
    func reusedBuffers() async throws {
        let f = try RegistryFixture(size: 24 << 20 | 123)
        let url = try #require(f.registry.signedDownloadURL(modelId: "tiny"))
        let consumer = BufferRecordingConsumer()
        try await CurlTransport(maxQueuedBytes: 2 << 20).stream(HTTPRequest(url: url), to: consumer)
        #expect(consumer.bytes == 24 << 20 | 123)
        #expect(consumer.hasher.finalize().hex == f.registry.sha256(modelId: "tiny"))
        #expect(consumer.sizes.allSatisfy { $0 <= CurlTransfer.chunkSize })
        #expect(consumer.sizes.count >= 25)
    }

    @Test("a consumer that throws stops an endless transfer, and the connection is closed")
    func consumerThrows() async throws {
        let f = try RegistryFixture()
        f.registry.setFault(.extraBytes(nil, declareLength: false), modelId: "tiny", endpoint: .storage)
        let url = try #require(f.registry.signedDownloadURL(modelId: "tiny"))
        let consumer = RecordingConsumer()
        consumer.throwAfterBytes = 4 << 20
        let transport = try CurlTransport()
        await #expect(throws: APIError.bodyTooLong(expected: 4 << 20)) { try await transport.stream(HTTPRequest(url: url), to: consumer) }
        var open = f.registry.openDownloads
        for _ in 0..<200 where open > 0 {
            try await Task.sleep(nanoseconds: 10_000_000)
            open = f.registry.openDownloads
        }
        #expect(open == 0)
        #expect(consumer.bytes < 16 << 20)
    }

    @Test("an interim head (100 Continue) is replaced by the final one, never delivered")
    func interimHead() async throws {
        let body = "hello"
        let server = try ScriptedOrigin(answering: Data("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\nX-Real: yes\r\n\r\n\(body)".utf8))
        defer { server.stop() }
        let consumer = RecordingConsumer()
        try await CurlTransport().stream(HTTPRequest(url: server.url("/blob")), to: consumer)
        #expect(consumer.heads.count == 1)
        #expect(consumer.heads.first?.status == 200)
        #expect(consumer.heads.first?.headers["X-Real"] == "yes")
        #expect(consumer.heads.first?.contentLength == 5)
        #expect(consumer.bytes == 5)
    }

    @Test("header values carry no CR or LF")
    func headerValues() async throws {
        let server = try ScriptedOrigin(answering: Data("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nRetry-After: 7\r\n\r\n".utf8))
        defer { server.stop() }
        let consumer = RecordingConsumer()
        try await CurlTransport().stream(HTTPRequest(url: server.url("/blob")), to: consumer)
        #expect(consumer.heads.first?.status == 404)
        #expect(consumer.heads.first?.headers["Retry-After"] == "7")
    }
}
#endif

import Foundation
import Manashiki
import Testing
@testable import ManashikiRegistry
import ManashikiCore

/// A body consumer that hashes what it receives with the SDK's hasher.
private final class HashingConsumer: HTTPBodyConsumer, @unchecked Sendable {
    let hasher = SHA256Hasher()
    var status = 0
    var declared: Int64?
    var received = 0

    func receive(head: HTTPResponseHead) async throws {
        status = head.status
        declared = head.contentLength
    }

    func receive(chunk: Data) async throws {
        hasher.update(chunk)
        received += chunk.count
    }
}

@Suite("The SDK's transports against the registry")
struct SDKTransportTests {
    /// `DefaultTransport` (libcurl on Linux) and `URLSessionTransport` (FoundationNetworking on
    /// Linux), which the SDK guide's initializer names.
    static let transports: [@Sendable () -> any HTTPTransport] = [{ DefaultTransport() }, { URLSessionTransport() }]

    @Test("the SDK transport resolves a download and streams the artifact with the advertised digest", arguments: 0..<2)
    func streamsThroughSDKTransport(_ which: Int) async throws {
        var catalog = Fixture.catalog()
        catalog.add(model: RegistryModel(modelId: "medium", version: "1", artifact: .generated(size: 3 << 20, seed: 12)))
        let registry = try Fixture.start(catalog)
        defer { registry.stop() }
        let transport = Self.transports[which]()
        let meta = try await transport.send(HTTPRequest(url: registry.api("/api/download/medium"),
                                                        headers: ["X-API-Key": Fixture.publishable, "Accept": "application/json"]))
        #expect(meta.head.status == 200)
        let body = try #require(JSON.object(meta.body))
        let url = try #require(JSON.url(body["downloadUrl"]))
        let consumer = HashingConsumer()
        try await transport.stream(HTTPRequest(url: url), to: consumer)
        #expect(consumer.status == 200)
        #expect(consumer.declared == 3 << 20)
        #expect(consumer.received == 3 << 20)
        #expect(consumer.hasher.finalize().hex == body["sha256"] as? String)
        let storage = registry.requestLog().filter { $0.origin == .storage }
        #expect(storage.count == 1)
        #expect(storage.first?.header("X-API-Key") == nil)
    }
}

import Foundation
import Testing
@testable import Manashiki
import ManashikiCore
import ManashikiTestSupport

/// `HTTPTransport.send(_:)` with `documentLimits`: a real transport (the platform's default:
/// libcurl on Linux) against a loopback server that drips. The limits are short so the tests are;
/// what each asserts is the error that names the limit, never how long it took.
@Suite("Document limits: a deadline and a minimum rate for every document")
struct DocumentLimitsTests {
    static let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"

    static func send(_ origin: ScriptedOrigin, _ limits: DocumentLimits?, maxBytes: Int = 32 << 20) async throws -> HTTPResponse {
        try await DefaultTransport().send(HTTPRequest(url: origin.url("/api/models"), idleTimeout: 60, maxBufferedBodyBytes: maxBytes,
                                                      documentLimits: limits))
    }

    @Test("a body dripped at 2 bytes a second is cut at the first rate window, naming the minimum and the setting")
    func drip() async throws {
        let origin = try ScriptedOrigin { _ in
            [.send(Data(Self.head.utf8)), .drip(chunk: Data("{ ".utf8), intervalMilliseconds: 1000, limit: 10_000)]
        }
        let error = await #expect(throws: APIError.self) {
            try await Self.send(origin, DocumentLimits(timeout: 60, minimumBytesPerSecond: 1024, rateWindow: 1))
        }
        guard case .transport(let text)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(text.contains("arrived too slowly") && text.contains("1.0 KiB/s") && text.contains("policies.documents.minBytesPerSecond"), "\(text)")
        #expect(text.contains("127.0.0.1:\(origin.port)/api/models"), "\(text)")
    }

    @Test("a body fast enough for the rate that never ends is cut at the whole-response deadline")
    func deadline() async throws {
        let origin = try ScriptedOrigin { _ in
            [.send(Data(Self.head.utf8)), .drip(chunk: Data(repeating: 0x20, count: 4096), intervalMilliseconds: 200, limit: 1 << 30)]
        }
        let error = await #expect(throws: APIError.self) {
            try await Self.send(origin, DocumentLimits(timeout: 2, minimumBytesPerSecond: 1024, rateWindow: 1))
        }
        guard case .transport(let text)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(text.contains("did not finish arriving within 2 s") && text.contains("policies.documents.timeoutSeconds"), "\(text)")
    }

    @Test("a server that answers nothing at all is cut at the deadline too (no head, so no rate yet)")
    func silentHead() async throws {
        let origin = try ScriptedOrigin { _ in [.silence(seconds: 30)] }
        let error = await #expect(throws: APIError.self) {
            try await Self.send(origin, DocumentLimits(timeout: 2, minimumBytesPerSecond: 1024, rateWindow: 1))
        }
        guard case .transport(let text)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(text.contains("did not finish arriving within 2 s"), "\(text)")
    }

    @Test("a declared Content-Length over the limit is refused on the head, before any body is read")
    func declaredLength() async throws {
        let origin = try ScriptedOrigin { _ in
            [.send(Data("HTTP/1.1 200 OK\r\nContent-Length: 1099511627776\r\nConnection: close\r\n\r\n".utf8)),
             .endless(chunk: Data(repeating: 0x20, count: 65536), limit: 64 << 20)]
        }
        // No minimum rate: this test is about the head, and a test process whose threads are
        // all busy (the full suite on a loaded machine) once read the head 13.5 s late, after
        // the default rate window had already cut the request.
        let limits = DocumentLimits(timeout: 300, minimumBytesPerSecond: 0, rateWindow: 1)
        let error = await #expect(throws: APIError.self) { try await Self.send(origin, limits, maxBytes: 1 << 20) }
        #expect(error == .invalidResponse("the answer declares 1.00 TiB (Content-Length), more than the 1.0 MiB this document may be"))
        #expect(origin.bytesSentByEndlessSteps < 64 << 20)
    }

    @Test("a TUF metadata file that drips (the slow-retrieval attack) is unavailable, naming the limit")
    func tufSlowRetrieval() async throws {
        let origin = try ScriptedOrigin { _ in
            [.send(Data(Self.head.utf8)), .drip(chunk: Data("{ ".utf8), intervalMilliseconds: 1000, limit: 10_000)]
        }
        let source = TUFHTTPSource(baseURL: origin.url("/metadata/"), documentLimits: DocumentLimits(timeout: 60, minimumBytesPerSecond: 1024, rateWindow: 1))
        do {
            _ = try await source.fetch("timestamp.json", maxLength: 1 << 20)
            Issue.record("a dripped timestamp.json was read")
        } catch {
            guard case .unavailable(let text) = error.reason else { Issue.record("\(error)"); return }
            #expect(text.contains("arrived too slowly") && text.contains("policies.documents.minBytesPerSecond"), "\(text)")
        }
    }

    @Test("the answer to a HEAD declares what a GET would send, not a body: a Content-Length over the limit is not refused")
    func headDeclaresEntity() async throws {
        let origin = try ScriptedOrigin { _ in
            [.send(Data("HTTP/1.1 200 OK\r\nContent-Length: 12582912\r\nConnection: close\r\n\r\n".utf8))]
        }
        let response = try await DefaultTransport().send(HTTPRequest(method: "HEAD", url: origin.url("/blob"), maxBufferedBodyBytes: 64 << 10,
                                                                     documentLimits: .default))
        #expect(response.status == 200 && response.head.contentLength == 12 << 20 && response.body.isEmpty)
    }

    @Test("a document that arrives within the limits is returned whole; without limits a request is not watched")
    func withinLimits() async throws {
        let body = Data(#"{"models": []}"#.utf8)
        let origin = try ScriptedOrigin(answering: ScriptedOrigin.response(200, body: body))
        #expect(try await Self.send(origin, .default).body == body)
        #expect(try await Self.send(origin, nil).body == body)
    }

    @Test("the client's limits apply to its API requests: a dripped catalog fails listModels, naming the limit")
    func clientCatalog() async throws {
        let origin = try ScriptedOrigin { _ in
            [.send(Data(Self.head.utf8)), .drip(chunk: Data("{".utf8), intervalMilliseconds: 500, limit: 10_000)]
        }
        var client = try ManashikiClient(apiKey: "mk_pub_acme_0123456789abcdefghij", baseURL: origin.baseURL)
        client.documentLimits = DocumentLimits(timeout: 30, minimumBytesPerSecond: 100, rateWindow: 1)
        let error = await #expect(throws: APIError.self) { try await client.listModels() }
        guard case .transport(let text)? = error else { Issue.record("\(String(describing: error))"); return }
        // The client's rate (100 B/s over 1 s) cuts it; a test process starved of threads for
        // the whole run (.ci/stress) first looks at 30 s, the client's deadline. Either is the
        // client's limit: the defaults are 1 KiB/s over 10 s and 60 s.
        #expect(text.contains("arrived too slowly") || text.contains("did not finish arriving within 30 s"), "\(text)")
    }
}

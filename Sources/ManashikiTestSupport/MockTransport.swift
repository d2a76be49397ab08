import Foundation
import ManashikiCore
import Manashiki

/// A closure-backed `HTTPTransport` for unit tests: every request goes to `handler`, and every
/// request is recorded for assertions. No global state, no URLProtocol.
///
/// ```swift
/// let mock = MockTransport { request in
///     .json(200, #"{"models": []}"#)
/// }
/// let client = try ManashikiClient(apiKey: "mk_pub_acme_0123456789abcdefghij", transport: mock)
/// _ = try await client.listModels()
/// #expect(mock.requests.first?.headers["X-API-Key"] != nil)
/// ```
public struct MockTransport: HTTPTransport {
    /// Answers one request.
    public typealias Handler = @Sendable (HTTPRequest) async throws -> MockResponse

    private let handler: Handler
    private let log = Recorder()

    /// Creates a mock answering with `handler`.
    public init(_ handler: @escaping Handler) { self.handler = handler }

    /// Every request received so far, in order.
    public var requests: [HTTPRequest] { log.all }

    /// Delivers `handler`'s answer to `consumer` chunk by chunk.
    public func stream(_ request: HTTPRequest, to consumer: any HTTPBodyConsumer) async throws {
        log.append(request)
        let response = try await handler(request)
        try await consumer.receive(head: response.head)
        for chunk in response.chunks {
            try Task.checkCancellation()
            try await consumer.receive(chunk: chunk)
        }
        if let failure = response.failAfterBody { throw failure }
    }

    private final class Recorder: Sendable {
        private let items = Locked<[HTTPRequest]>([])
        func append(_ r: HTTPRequest) { items.withLock { $0.append(r) } }
        var all: [HTTPRequest] { items.current }
    }
}

/// A canned answer for `MockTransport`.
public struct MockResponse: Sendable {
    /// Status and headers.
    public var head: HTTPResponseHead
    /// The body, delivered in these pieces.
    public var chunks: [Data]
    /// An error thrown after the body (a connection reset mid-transfer).
    public var failAfterBody: APIError?

    /// Creates an answer.
    public init(status: Int, headers: HTTPHeaders = [:], chunks: [Data] = [], failAfterBody: APIError? = nil) {
        self.head = HTTPResponseHead(status: status, headers: headers)
        self.chunks = chunks
        self.failAfterBody = failAfterBody
    }

    /// A JSON answer.
    public static func json(_ status: Int, _ body: String, headers: HTTPHeaders = [:]) -> MockResponse {
        var h = headers
        h["Content-Type"] = "application/json"
        return MockResponse(status: status, headers: h, chunks: [Data(body.utf8)])
    }

    /// A contract error body: `{"error": {"code": …, "message": …}}`.
    public static func error(_ status: Int, code: String, message: String = "error", headers: HTTPHeaders = [:]) -> MockResponse {
        json(status, #"{"error": {"code": "\#(code)", "message": "\#(message)"}}"#, headers: headers)
    }

    /// A binary answer with `Content-Length`, split into `chunkSize` pieces.
    public static func bytes(_ data: Data, status: Int = 200, chunkSize: Int = 64 << 10, headers: HTTPHeaders = [:]) -> MockResponse {
        var h = headers
        if h["Content-Length"] == nil { h["Content-Length"] = String(data.count) }
        var chunks: [Data] = []
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunkSize, data.count)
            chunks.append(data.subdata(in: offset..<end))
            offset = end
        }
        return MockResponse(status: status, headers: h, chunks: chunks)
    }
}

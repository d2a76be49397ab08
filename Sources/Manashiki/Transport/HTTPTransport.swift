import Foundation

/// Moves bytes between the SDK and HTTP servers: small JSON exchanges and streamed downloads.
///
/// The transport is deliberately dumb: it sends exactly the headers it is given, **never
/// follows redirects** (a 3xx is returned like any other answer) and never retries. The client
/// decides what to follow and which credentials may go where, in one place, whatever
/// transport is plugged in.
///
/// Implement `stream(_:to:)`; `send(_:)` has a default built on it. Tests inject a
/// closure-backed transport (`MockTransport` in `ManashikiTestSupport`).
public protocol HTTPTransport: Sendable {
    /// Sends `request` and delivers the answer to `consumer`: first the head, then the body in
    /// order, one call at a time, awaiting each call before reading further (so a slow consumer
    /// slows the transfer instead of growing a buffer). Returns when the body is complete.
    ///
    /// If the consumer throws, the transfer is cancelled and the error is rethrown. Task
    /// cancellation cancels the transfer promptly and throws `CancellationError`.
    /// - Throws: `APIError.transport` for network failures.
    func stream(_ request: HTTPRequest, to consumer: any HTTPBodyConsumer) async throws

    /// Sends `request` and returns the whole answer, buffering at most
    /// `request.maxBufferedBodyBytes` bytes of body.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse

    /// The most received body bytes the transport holds at once over all its requests, when
    /// it bounds them (`CurlTransport` and `URLSessionTransport`: their `bufferBudget`); nil
    /// (the default) when it does not say. A download keeps at most a quarter of it in memory
    /// for its in-order hash, so its connections never wait for buffers the hash holds.
    var bodyBufferBudget: Int? { get }
}

/// Receives a streamed response. The transport calls it one method at a time, in order,
/// never concurrently.
public protocol HTTPBodyConsumer: AnyObject, Sendable {
    /// The status line and headers, before any body. Throw to stop the transfer.
    func receive(head: HTTPResponseHead) async throws
    /// The next piece of the body. Throw to stop the transfer.
    func receive(chunk: Data) async throws
}

extension HTTPTransport {
    /// Not said (see the requirement).
    public var bodyBufferBudget: Int? { nil }

    /// Buffers the response of `stream(_:to:)`, failing once the body exceeds
    /// `request.maxBufferedBodyBytes`.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let collector = BufferingConsumer(limit: request.maxBufferedBodyBytes)
        try await stream(request, to: collector)
        return try collector.response()
    }
}

/// Collects a whole response in memory, up to a limit.
final class BufferingConsumer: HTTPBodyConsumer, @unchecked Sendable {
    private let limit: Int
    private var head: HTTPResponseHead?
    private var body = Data()

    init(limit: Int) { self.limit = limit }

    func receive(head: HTTPResponseHead) async throws {
        self.head = head
        if let length = head.contentLength, length <= Int64(limit) { body.reserveCapacity(Int(length)) }
    }

    func receive(chunk: Data) async throws {
        guard body.count + chunk.count <= limit else {
            throw APIError.invalidResponse("the answer is larger than \(limit) bytes")
        }
        body.append(chunk)
    }

    func response() throws -> HTTPResponse {
        guard let head else { throw APIError.transport("the server closed the connection without answering") }
        return HTTPResponse(head: head, body: body)
    }
}

import Foundation
import ManashikiCore

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

    /// Buffers the response of `stream(_:to:)`, failing as soon as the body is declared
    /// (`Content-Length`) or found larger than `request.maxBufferedBodyBytes`, and, when
    /// `request.documentLimits` is set, as soon as the whole response takes longer or arrives
    /// slower than they allow (`streamDocument(_:to:)`).
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let collector = BufferingConsumer(limit: request.maxBufferedBodyBytes, isHEAD: request.method == "HEAD")
        try await streamDocument(request, to: collector)
        return try collector.response()
    }

    /// `stream(_:to:)` within `request.documentLimits` when they are set (`DocumentWatch`: the
    /// whole response by its deadline, the body at the minimum rate, else the transfer is
    /// cancelled), for a document read by a consumer of its own (TUF metadata); without them,
    /// `stream(_:to:)` as it is.
    /// - Throws: `APIError.transport` naming the limit crossed; the transfer's and the consumer's errors.
    public func streamDocument(_ request: HTTPRequest, to consumer: any HTTPBodyConsumer) async throws {
        guard let limits = request.documentLimits else { return try await stream(request, to: consumer) }
        let metered = DocumentWatch.MeteredConsumer(consumer)
        try await DocumentWatch.run(limits, url: request.url, meter: metered.meter) { try await self.stream(request, to: metered) }
    }
}

/// Collects a whole response in memory, up to a limit.
final class BufferingConsumer: HTTPBodyConsumer, @unchecked Sendable {
    private let limit: Int
    /// A HEAD's `Content-Length` is the size of what a GET would send, not of a body.
    private let isHEAD: Bool
    private var head: HTTPResponseHead?
    private var body = Data()

    init(limit: Int, isHEAD: Bool = false) {
        self.limit = limit
        self.isHEAD = isHEAD
    }

    func receive(head: HTTPResponseHead) async throws {
        self.head = head
        // Refused on the declared length, before a byte of the body is read (an interim 1xx
        // head declares nothing; neither does the answer to a HEAD, nor a 204 or a 304).
        guard !isHEAD, head.status >= 200, head.status != 204, head.status != 304, let length = head.contentLength else { return }
        if length > Int64(limit) {
            throw APIError.invalidResponse("the answer declares \(ByteSize.text(length)) (Content-Length), more than the \(ByteSize.text(Int64(limit))) this document may be")
        }
        body.reserveCapacity(Int(length))
    }

    func receive(chunk: Data) async throws {
        guard body.count + chunk.count <= limit else {
            throw APIError.invalidResponse("the answer is larger than the \(ByteSize.text(Int64(limit))) this document may be")
        }
        body.append(chunk)
    }

    func response() throws -> HTTPResponse {
        guard let head else { throw APIError.transport("the server closed the connection without answering") }
        return HTTPResponse(head: head, body: body)
    }
}

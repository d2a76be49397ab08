import Foundation

/// One HTTP request, as handed to an `HTTPTransport`.
public struct HTTPRequest: Sendable, Hashable {
    /// `GET`, `POST`, `PUT`…
    public var method: String
    /// The absolute URL.
    public var url: URL
    /// The header fields to send; the transport adds nothing that carries credentials.
    public var headers: HTTPHeaders
    /// The body to send, if any.
    public var body: Data?
    /// The longest the transport may wait for the next byte before failing with
    /// `APIError.transport` (a stall timeout, not a deadline for the whole transfer).
    public var idleTimeout: TimeInterval
    /// The most body bytes `HTTPTransport.send(_:)` buffers before failing with
    /// `APIError.invalidResponse` (checked on the declared `Content-Length` first), so a
    /// hostile or broken server cannot exhaust memory.
    public var maxBufferedBodyBytes: Int
    /// For a document read whole (`HTTPTransport.send(_:)`): the most time the whole response
    /// may take and the slowest rate it may arrive at. nil: only the transport's `idleTimeout`.
    public var documentLimits: DocumentLimits?
    /// Called by a transport whose request waits for a network the policy allows instead of
    /// failing (`URLSessionTransport` with `NetworkPolicy.waitsForConnectivity`). Takes no part
    /// in equality or hashing.
    public var onWaitingForConnectivity: (@Sendable () -> Void)? {
        get { waitingObserver.body }
        set { waitingObserver = Observer(newValue) }
    }
    private var waitingObserver = Observer<(@Sendable () -> Void)?>(nil)

    /// Creates a request.
    public init(method: String = "GET", url: URL, headers: HTTPHeaders = [:], body: Data? = nil,
                idleTimeout: TimeInterval = 60, maxBufferedBodyBytes: Int = 32 << 20, documentLimits: DocumentLimits? = nil,
                onWaitingForConnectivity: (@Sendable () -> Void)? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.idleTimeout = idleTimeout
        self.maxBufferedBodyBytes = maxBufferedBodyBytes
        self.documentLimits = documentLimits
        self.onWaitingForConnectivity = onWaitingForConnectivity
    }
}

/// The status line and headers of a response.
public struct HTTPResponseHead: Sendable, Hashable {
    /// The status code.
    public var status: Int
    /// The header fields.
    public var headers: HTTPHeaders

    /// Creates a head.
    public init(status: Int, headers: HTTPHeaders = [:]) {
        self.status = status
        self.headers = headers
    }

    /// The declared `Content-Length`, when there is exactly one valid, non-negative value.
    public var contentLength: Int64? {
        let values = headers.values(for: "Content-Length")
        guard !values.isEmpty else { return nil }
        // Repeated or comma-joined values must all agree (RFC 9110 §8.6).
        let parts = values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first, let n = Int64(first), n >= 0, parts.allSatisfy({ $0 == first }) else { return nil }
        return n
    }
}

/// A complete, buffered response.
public struct HTTPResponse: Sendable, Hashable {
    /// The status line and headers.
    public var head: HTTPResponseHead
    /// The body.
    public var body: Data

    /// Creates a response.
    public init(head: HTTPResponseHead, body: Data = Data()) {
        self.head = head
        self.body = body
    }

    /// Creates a response from a status, headers and body.
    public init(status: Int, headers: HTTPHeaders = [:], body: Data = Data()) {
        self.init(head: HTTPResponseHead(status: status, headers: headers), body: body)
    }

    /// The status code.
    public var status: Int { head.status }
}

import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One accepted TCP connection: buffered reading of request heads and bodies, and writing.
/// Used by exactly one thread.
final class HTTPConnection {
    /// What reading the next request head produced.
    enum HeadResult {
        /// A request; its body (if any) is still unread.
        case request(ServerRequest, contentLength: Int)
        /// The peer closed the connection between requests.
        case closed
        /// The head was malformed; answer with the error's status and close.
        case failed(HTTPParseError)
    }

    /// The socket descriptor.
    let fd: Int32
    /// Whether the peer is on a loopback address.
    let fromLoopback: Bool
    /// Fires when the server stops.
    let stop: StopSignal
    /// The largest request head accepted.
    let maxHeadBytes: Int
    private var buffer: [UInt8] = []
    private var expectsContinue = false

    init(fd: Int32, fromLoopback: Bool, stop: StopSignal, maxHeadBytes: Int) {
        self.fd = fd
        self.fromLoopback = fromLoopback
        self.stop = stop
        self.maxHeadBytes = maxHeadBytes
    }

    /// Reads the next request head.
    func readHead() -> HeadResult {
        var scanned = 0
        while true {
            // A TLS handshake record (0x16) on this plain-http port: answer at once, so the
            // client's TLS library reads plain text and says so, instead of waiting for a line.
            if buffer.first == 0x16 { return .failed(.badRequest("a TLS handshake on a plain-http port: use http://, not https://")) }
            if let end = HTTPParser.headEnd(in: buffer, from: scanned) {
                guard end <= maxHeadBytes else { return .failed(.headersTooLarge) }
                let head = buffer[0..<end]
                buffer.removeFirst(end)
                do {
                    var (request, length) = try HTTPParser.parseHead(head)
                    request.fromLoopback = fromLoopback
                    expectsContinue = request.header("Expect")?.lowercased() == "100-continue"
                    return .request(request, contentLength: length)
                } catch {
                    return .failed(error)
                }
            }
            if buffer.count > maxHeadBytes { return .failed(.headersTooLarge) }
            scanned = buffer.count
            guard let n = try? fill(), n > 0 else {
                return buffer.allSatisfy({ $0 == 13 || $0 == 10 }) ? .closed : .failed(.badRequest("incomplete request head"))
            }
        }
    }

    /// Reads a whole `count`-byte body into memory (answering `Expect: 100-continue` first).
    func readBody(count: Int) throws -> Data {
        var data = Data(capacity: count)
        try streamBody(count: count) { data.append(contentsOf: $0) }
        return data
    }

    /// Delivers a `count`-byte body to `sink` in pieces (answering `Expect: 100-continue` first).
    func streamBody(count: Int, into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        sendContinueIfExpected()
        var remaining = count
        if !buffer.isEmpty {
            let take = min(remaining, buffer.count)
            try buffer.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0.prefix(take))) }
            buffer.removeFirst(take)
            remaining -= take
        }
        var chunk = [UInt8](repeating: 0, count: 256 << 10)
        while remaining > 0 {
            let want = min(remaining, chunk.count)
            let n = try chunk.withUnsafeMutableBytes { try POSIXSocket.receive(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0.prefix(want))) }
            if n == 0 { throw SocketError(operation: "recv (body ended early)", code: ECONNRESET) }
            try chunk.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
            remaining -= n
        }
    }

    /// Sends `100 Continue` when the client asked for it and it has not been sent yet.
    private func sendContinueIfExpected() {
        guard expectsContinue else { return }
        expectsContinue = false
        try? write(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8))
    }

    /// Writes all of `data`.
    func write(_ data: Data) throws {
        try data.withUnsafeBytes { try write($0) }
    }

    /// Writes all of `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        defer { bodyBytesSent += Int64(bytes.count) }
        try POSIXSocket.sendAll(fd, bytes)
    }

    /// Copies `count` bytes of `file` from `offset` to the peer (`sendfile(2)` where it exists).
    func send(file: Int32, offset: Int64, count: Int64) throws {
        defer { bodyBytesSent += count }
        try POSIXSocket.sendFile(fd, file: file, offset: offset, count: count)
    }

    /// Writes a response head (not counted in `bodyBytesSent`).
    func writeHead(_ head: String) throws {
        try Data(head.utf8).withUnsafeBytes { try POSIXSocket.sendAll(fd, $0) }
    }

    /// Body bytes handed to the socket so far (a failed send counts in full: its bytes may
    /// have left before the failure).
    private(set) var bodyBytesSent: Int64 = 0

    private func fill() throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 16 << 10)
        let n = try chunk.withUnsafeMutableBytes { try POSIXSocket.receive(fd, into: $0) }
        if n > 0 { buffer.append(contentsOf: chunk[0..<n]) }
        return n
    }
}

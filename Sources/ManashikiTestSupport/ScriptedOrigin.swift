import Foundation
import ManashikiCore
import ManashikiRegistry
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The test targets' one raw loopback server: a tiny raw-socket HTTP/1.1 server on 127.0.0.1
/// that answers each request with exactly the bytes a test scripts, one request per connection,
/// and records every request's headers. It produces what the development registry cannot:
/// invalid JSON, repeated or negative `Content-Length`, interim `1xx` heads, endless bodies, a
/// peer that accepts and then says nothing… and is also the "second origin" that proves which
/// headers reach a storage host or a redirect target.
///
/// ```swift
/// let origin = try ScriptedOrigin(answering: ScriptedOrigin.response(404, reason: "Not Found", body: Data()))
/// let silent = try ScriptedOrigin { _ in [.silence(seconds: 30)] }
/// ```
///
/// It stops (closing the listening socket) on `stop()` or when the last reference goes; a
/// connection being served keeps it alive until that connection ends.
package final class ScriptedOrigin: @unchecked Sendable {
    /// The script: the steps for one request.
    package typealias Handler = @Sendable (ScriptedRequest) -> [ScriptStep]

    private let listenFD: Int32
    /// The port it listens on.
    package let port: UInt16
    private let state: Locked<State>

    private struct State {
        var handler: Handler
        var recorded: [ScriptedRequest] = []
        var stopped = false
        /// Bytes sent by `.endless` steps, in all.
        var endlessSent = 0
    }

    /// `http://127.0.0.1:<port>`.
    package var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// `http://127.0.0.1:<port><path>`.
    package func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

    /// Listens on a free loopback port and answers every request with `handler`'s steps.
    /// - Throws: the socket call's error when no port could be bound.
    package init(_ handler: @escaping Handler) throws {
        self.state = Locked(State(handler: handler))
        // Bound as the development registry binds its origins (the one listening-socket code).
        let (fd, port) = try POSIXSocket.listen(host: "127.0.0.1", port: 0)
        listenFD = fd
        self.port = port
        // The accept loop holds the origin only while handing a connection over, so the origin
        // goes away (and stops) with its last reference.
        let thread = Thread { [weak self, fd] in ScriptedOrigin.acceptLoop(fd) { self } }
        thread.start()
    }

    /// Answers every request with exactly `answer` (then closes the connection).
    package convenience init(answering answer: Data) throws {
        try self.init { _ in [.send(answer)] }
    }

    deinit { stop() }

    /// Replaces the script.
    package func setHandler(_ handler: @escaping Handler) { state.withLock { $0.handler = handler } }

    /// Every request received so far.
    package var requests: [ScriptedRequest] { state.withLock { $0.recorded } }
    /// Bytes sent by `.endless` steps so far, in all.
    package var bytesSentByEndlessSteps: Int { state.withLock { $0.endlessSent } }

    /// Stops listening; steps under way end at their next check.
    package func stop() {
        let wasStopped = state.withLock { state in
            defer { state.stopped = true }
            return state.stopped
        }
        if !wasStopped {
            shutdown(listenFD, Int32(SHUT_RDWR))
            close(listenFD)
        }
    }

    private var isStopped: Bool { state.withLock { $0.stopped } }

    private static func acceptLoop(_ listenFD: Int32, _ origin: () -> ScriptedOrigin?) {
        while true {
            let client = accept(listenFD, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            guard let origin = origin(), !origin.isStopped else { close(client); return }
            Thread { origin.serve(client) }.start()
        }
    }

    private func serve(_ fd: Int32) {
        defer { close(fd) }
        POSIXSocket.noSIGPIPE(fd)
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var head = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while head.range(of: Data("\r\n\r\n".utf8)) == nil {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return }
            head.append(buffer, count: n)
            if head.count > 65_536 { return }
        }
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        guard requestLine.count >= 2 else { return }
        var headers: [(String, String)] = []
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
        }
        let request = ScriptedRequest(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers)
        let handler = state.withLock { state in
            state.recorded.append(request)
            return state.handler
        }
        for step in handler(request) {
            switch step {
            case .send(let data):
                guard sendAll(fd, data) else { return }
            case .pause(let ms):
                var left = ms
                while left > 0 && !isStopped { usleep(UInt32(min(left, 50)) * 1000); left -= 50 }
            case .endless(let chunk, let limit):
                var sent = 0
                while sent < limit && !isStopped {
                    guard sendAll(fd, chunk) else { break }
                    sent += chunk.count
                    state.withLock { $0.endlessSent += chunk.count }
                }
                return
            case .drip(let chunk, let interval, let limit):
                var sent = 0
                while sent < limit && !isStopped {
                    guard sendAll(fd, chunk) else { return }
                    sent += chunk.count
                    var left = interval
                    while left > 0 && !isStopped { usleep(UInt32(min(left, 50)) * 1000); left -= 50 }
                }
            case .silence(let seconds):
                // Wait until the peer hangs up (recv returns 0 or fails) or the time is up.
                let deadline = Date().addingTimeInterval(Double(seconds))
                var shortTimeout = timeval(tv_sec: 0, tv_usec: 100_000)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &shortTimeout, socklen_t(MemoryLayout<timeval>.size))
                while Date() < deadline && !isStopped {
                    let n = recv(fd, &buffer, buffer.count, 0)
                    if n == 0 { return }
                    if n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { return }
                }
                return
            }
        }
    }

    private func sendAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in (try? POSIXSocket.sendAll(fd, raw)) != nil }
    }

    // MARK: Building answers

    /// A complete response: status line, the given header lines (exact), `Connection: close`
    /// and the body. A `Content-Length` is added only when `contentLength` is true.
    package static func response(_ status: Int, reason: String = "OK", headers: [String] = [], body: Data, contentLength: Bool = true) -> Data {
        var head = "HTTP/1.1 \(status) \(reason)\r\n"
        for h in headers { head += h + "\r\n" }
        if contentLength { head += "Content-Length: \(body.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        return Data(head.utf8) + body
    }

    /// A JSON answer (`Content-Type: application/json`).
    package static func json(_ text: String, status: Int = 200, headers: [String] = []) -> [ScriptStep] {
        [.send(response(status, headers: ["Content-Type: application/json"] + headers, body: Data(text.utf8)))]
    }
}

import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Handles requests for an `HTTPServer`, one connection thread at a time.
protocol HTTPRequestHandler: Sendable {
    /// Answers `request` (reading its `contentLength`-byte body from `connection` if it needs
    /// it). Returns whether the connection may carry another request.
    func handle(_ request: ServerRequest, contentLength: Int, on connection: HTTPConnection) -> Bool
}

/// A small blocking HTTP/1.1 server: one accept thread and one thread per connection, with
/// keep-alive. `stop()` closes the listener, shuts every open connection down and waits for
/// all threads to finish.
final class HTTPServer: @unchecked Sendable {
    /// The port the server listens on.
    let port: UInt16
    /// Fires when the server stops; long-running responses watch it.
    let stopSignal = StopSignal()

    private struct State {
        var open: Set<Int32> = []
        var threads = 0
        var acceptRunning = false
        var stopped = false
    }

    private let listener: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let handler: any HTTPRequestHandler
    private let maxHeadBytes: Int
    private let state = Locked(State())
    /// An `NSCondition` beside `state`: `stop()` waits on it until the accept loop and the
    /// connection threads have ended (`Locked` cannot wait).
    private let finished = NSCondition()

    /// Binds `host:port` (port 0 picks an ephemeral one). Call `start()` to accept.
    init(host: String, port: UInt16, maxHeadBytes: Int = 16 << 10, handler: any HTTPRequestHandler) throws {
        POSIXSocket.ignoreSIGPIPE()
        let (fd, bound) = try POSIXSocket.listen(host: host, port: port)
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            let code = errno
            close(fd)
            throw SocketError(operation: "pipe", code: code)
        }
        listener = fd
        wakeRead = fds[0]
        wakeWrite = fds[1]
        self.port = bound
        self.handler = handler
        self.maxHeadBytes = maxHeadBytes
    }

    deinit { stop() }

    /// Starts the accept thread.
    func start() {
        state.withLock { $0.acceptRunning = true }
        let thread = Thread { [self] in acceptLoop() }
        thread.name = "manashiki-registry accept :\(port)"
        thread.start()
    }

    /// Stops accepting, shuts down every connection and waits (up to 10 s) for their threads.
    /// Idempotent.
    func stop() {
        let first = state.withLock { s -> Bool in
            defer { s.stopped = true }
            return !s.stopped
        }
        guard first else { return }
        stopSignal.fire()
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        let deadline = Date(timeIntervalSinceNow: 10)
        finished.lock()
        while state.withLock({ $0.acceptRunning }), finished.wait(until: deadline) {}
        finished.unlock()
        state.withLock { s in
            for fd in s.open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        finished.lock()
        while state.withLock({ $0.threads > 0 }), finished.wait(until: deadline) {}
        finished.unlock()
        close(listener)
        close(wakeRead)
        close(wakeWrite)
    }

    private func acceptLoop() {
        defer {
            state.withLock { $0.acceptRunning = false }
            finished.lock()
            finished.broadcast()
            finished.unlock()
        }
        while true {
            var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, 2, -1)
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            if fds[1].revents != 0 || stopSignal.isStopped { return }
            guard fds[0].revents & Int16(POLLIN) != 0, let (fd, loopback) = POSIXSocket.accept(listener) else { continue }
            let admitted = state.withLock { s -> Bool in
                guard !s.stopped else { return false }
                s.open.insert(fd)
                s.threads += 1
                return true
            }
            guard admitted else {
                close(fd)
                return
            }
            let thread = Thread { [self] in serve(fd: fd, loopback: loopback) }
            thread.name = "manashiki-registry connection"
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    private func serve(fd: Int32, loopback: Bool) {
        defer {
            state.withLock { s in
                s.open.remove(fd)
                close(fd)
                s.threads -= 1
            }
            finished.lock()
            finished.broadcast()
            finished.unlock()
        }
        let connection = HTTPConnection(fd: fd, fromLoopback: loopback, stop: stopSignal, maxHeadBytes: maxHeadBytes)
        while !stopSignal.isStopped {
            switch connection.readHead() {
            case .closed:
                return
            case .failed(let error):
                let code = error.status == 431 ? "headers_too_large" : "bad_request"
                var response = ServerResponse.error(error.status, code, error.message)
                response.closeConnection = true
                _ = ResponseWriter.send(response, on: connection, keepAlive: false)
                return
            case .request(let request, let contentLength):
                guard handler.handle(request, contentLength: contentLength, on: connection) else { return }
            }
        }
    }
}

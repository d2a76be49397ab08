import Foundation
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed socket call.
struct SocketError: Error, CustomStringConvertible {
    /// The call that failed (`bind`, `send`…).
    let operation: String
    /// `errno` at the time.
    let code: Int32

    var description: String { "\(operation) failed: \(String(cString: strerror(code))) (errno \(code))" }
}

/// Thin wrappers over the POSIX socket calls the servers use (Glibc on Linux, Darwin on Apple).
package enum POSIXSocket {
    #if canImport(Glibc)
    /// `SOCK_STREAM` as `socket(2)` takes it (an enum in Glibc, an Int32 elsewhere).
    package static let streamType = Int32(SOCK_STREAM.rawValue)
    /// Flags for `send(2)`: no SIGPIPE when the peer has gone.
    package static let sendFlags = Int32(MSG_NOSIGNAL)
    #elseif canImport(Musl) || canImport(Android)
    package static let streamType = Int32(SOCK_STREAM)
    package static let sendFlags = Int32(MSG_NOSIGNAL)
    #else
    package static let streamType = SOCK_STREAM
    /// Darwin has no MSG_NOSIGNAL: sockets get SO_NOSIGPIPE instead (`noSIGPIPE(_:)`).
    package static let sendFlags: Int32 = 0
    #endif

    /// Keeps a socket from raising SIGPIPE when the peer has gone: SO_NOSIGPIPE on Darwin
    /// (Linux passes MSG_NOSIGNAL to every send instead).
    package static func noSIGPIPE(_ fd: Int32) {
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    /// Ignores SIGPIPE for the whole process: `sendfile(2)` has no `MSG_NOSIGNAL`, and a client
    /// that hangs up mid-body must never kill the process hosting the registry.
    static func ignoreSIGPIPE() {
        _ = signal(SIGPIPE, SIG_IGN)
    }

    /// Opens a listening IPv4 TCP socket on `host:port` (port 0 = ephemeral).
    /// - Returns: the descriptor and the port actually bound.
    package static func listen(host: String, port: UInt16) throws -> (fd: Int32, port: UInt16) {
        let address = try ipv4Address(host: host, port: port)
        let fd = try streamSocket()
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard call({ bind(fd, $0, $1) }, with: address) == 0 else { throw failure("bind(\(host):\(port))", closing: fd) }
        guard libcListen(fd, 1024) == 0 else { throw failure("listen", closing: fd) }
        return (fd, localPort(fd))
    }

    /// Opens a blocking IPv4 TCP connection to `host:port` (SIGPIPE-free, as `noSIGPIPE(_:)`
    /// makes it). `receiveBuffer`, when set, fixes `SO_RCVBUF` before the connect (which also
    /// turns off the kernel's receive-window autotuning).
    /// - Returns: the connected descriptor; the caller closes it.
    package static func connect(host: String = "127.0.0.1", port: UInt16, receiveBuffer: Int32? = nil) throws -> Int32 {
        let address = try ipv4Address(host: host, port: port)
        let fd = try streamSocket()
        noSIGPIPE(fd)
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        guard call({ libcConnect(fd, $0, $1) }, with: address) == 0 else { throw failure("connect(\(host):\(port))", closing: fd) }
        return fd
    }

    /// A new IPv4 TCP socket.
    private static func streamSocket() throws -> Int32 {
        let fd = socket(AF_INET, streamType, 0)
        guard fd >= 0 else { throw SocketError(operation: "socket", code: errno) }
        return fd
    }

    /// `call` (`bind`, `connect`) given `address` as the `sockaddr` pointer and length it takes.
    private static func call(_ call: (UnsafePointer<sockaddr>, socklen_t) -> Int32, with address: sockaddr_in) -> Int32 {
        withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    /// The error of `operation` (errno as the failed call left it, read before anything else
    /// runs, the operation's text included), after closing `fd`.
    private static func failure(_ operation: @autoclosure () -> String, closing fd: Int32) -> SocketError {
        let code = errno
        close(fd)
        return SocketError(operation: operation(), code: code)
    }

    /// The local port `fd` is bound to (`getsockname`): the ephemeral port a listener got, or
    /// a connection's source port.
    package static func localPort(_ fd: Int32) -> UInt16 {
        var local = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return UInt16(bigEndian: local.sin_port)
    }

    /// The IPv4 address `host:port`; `localhost` names are 127.0.0.1.
    private static func ipv4Address(host: String, port: UInt16) throws -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        let literal = LoopbackHost.isLocalhostName(host) ? "127.0.0.1" : host
        guard inet_pton(AF_INET, literal, &address.sin_addr) == 1 else {
            throw SocketError(operation: "inet_pton(\(host)): not an IPv4 address", code: EINVAL)
        }
        return address
    }

    /// Accepts one connection. Returns the descriptor and whether the peer is on loopback.
    static func accept(_ listener: Int32) -> (fd: Int32, loopback: Bool)? {
        var peer = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = withUnsafeMutablePointer(to: &peer) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { libcAccept(listener, $0, &length) }
        }
        guard fd >= 0 else { return nil }
        configure(fd)
        let loopback = peer.sin_family == sa_family_t(AF_INET) && (UInt32(bigEndian: peer.sin_addr.s_addr) >> 24) == 127
        return (fd, loopback)
    }

    /// Per-connection options: no Nagle delay, no SIGPIPE on Apple platforms, and a 5-minute
    /// receive timeout so abandoned keep-alive connections do not hold threads forever.
    private static func configure(_ fd: Int32) {
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var idle = timeval(tv_sec: 300, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &idle, socklen_t(MemoryLayout<timeval>.size))
        noSIGPIPE(fd)
    }

    /// Writes all of `buffer`, retrying on partial writes and EINTR.
    package static func sendAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < buffer.count {
            let n = send(fd, buffer.baseAddress! + offset, buffer.count - offset, sendFlags)
            if n < 0 {
                if errno == EINTR { continue }
                throw SocketError(operation: "send", code: errno)
            }
            offset += n
        }
    }

    /// Reads up to `capacity` bytes; 0 means the peer closed.
    static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        while true {
            let n = recv(fd, buffer.baseAddress, buffer.count, 0)
            if n < 0 {
                if errno == EINTR { continue }
                throw SocketError(operation: "recv", code: errno)
            }
            return n
        }
    }

    /// Copies `count` bytes of `file` from `offset` to the socket: `sendfile(2)` on Linux,
    /// `pread` + `send` elsewhere.
    static func sendFile(_ fd: Int32, file: Int32, offset: Int64, count: Int64) throws {
        #if os(Linux) || os(Android)
        var position = off_t(offset)
        var remaining = count
        while remaining > 0 {
            let n = sendfile(fd, file, &position, Int(min(remaining, 1 << 30)))
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                throw SocketError(operation: "sendfile", code: errno)
            }
            if n == 0 { throw SocketError(operation: "sendfile (file shorter than expected)", code: EIO) }
            remaining -= Int64(n)
        }
        #else
        var position = offset
        let end = offset + count
        var chunk = [UInt8](repeating: 0, count: 256 << 10)
        while position < end {
            let want = Int(min(Int64(chunk.count), end - position))
            let n = chunk.withUnsafeMutableBytes { pread(file, $0.baseAddress, want, off_t(position)) }
            if n <= 0 { throw SocketError(operation: "pread", code: n < 0 ? errno : EIO) }
            try chunk.withUnsafeBytes { try sendAll(fd, UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
            position += Int64(n)
        }
        #endif
    }

    /// Closes with an RST instead of a FIN (SO_LINGER with a zero timeout).
    static func reset(_ fd: Int32) {
        var option = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Whether the peer has closed (or reset) the connection, waiting at most `milliseconds`.
    /// Unread request bytes count as "still open".
    static func peerClosed(_ fd: Int32, waiting milliseconds: Int32) -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let n = poll(&p, 1, milliseconds)
        guard n > 0 else { return false }
        if p.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return true }
        var byte: UInt8 = 0
        let peeked = recv(fd, &byte, 1, Int32(MSG_PEEK) | Int32(MSG_DONTWAIT))
        return peeked == 0 || (peeked < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }
}

// The libc calls that `POSIXSocket`'s own `listen`, `accept` and `connect` hide inside it,
// called from here, at file scope, where only libc's are in scope.

/// `listen(2)`.
private func libcListen(_ fd: Int32, _ backlog: Int32) -> Int32 { listen(fd, backlog) }

/// `accept(2)`.
private func libcAccept(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>) -> Int32 {
    accept(fd, address, length)
}

/// `connect(2)`.
private func libcConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}

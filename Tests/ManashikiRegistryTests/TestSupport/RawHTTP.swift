import Foundation
import ManashikiRegistry
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a raw read ended.
enum RawEnd: Equatable {
    /// The peer closed the connection (FIN).
    case closed
    /// The peer reset the connection (ECONNRESET).
    case reset
    /// Nothing arrived within the receive timeout.
    case timedOut
    /// The byte limit was reached (the client stopped reading).
    case limitReached
}

/// A parsed response head.
struct RawHead {
    let status: Int
    let headers: [(name: String, value: String)]

    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// A blocking loopback TCP client for checking exactly what goes over the wire.
final class RawConnection {
    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to 127.0.0.1:`port`; reads time out after `timeout` seconds of silence.
    /// `receiveBuffer` (when set) fixes SO_RCVBUF, which also disables receive-window autotuning.
    init(port: Int, timeout: Double = 20, receiveBuffer: Int32? = nil) throws {
        fd = try POSIXSocket.connect(port: UInt16(port), receiveBuffer: receiveBuffer)
        var tv = timeval(tv_sec: Int(timeout), tv_usec: suseconds_t((timeout - Double(Int(timeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    func send(_ text: String) { send(Array(text.utf8)) }

    /// Sends all of `bytes` (the registry's `POSIXSocket.sendAll`); a peer that has gone ends it.
    func send(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { _ = try? POSIXSocket.sendAll(fd, $0) }
    }

    /// Reads more bytes into the buffer; returns how the read ended if it did.
    private func fill() -> RawEnd? {
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n > 0 {
            buffer.append(contentsOf: chunk[0..<n])
            return nil
        }
        if n == 0 { return .closed }
        if errno == EAGAIN || errno == EWOULDBLOCK { return .timedOut }
        return .reset
    }

    /// Reads a response head (nil if the connection ended first, with how).
    func readHead() -> (head: RawHead?, end: RawEnd?) {
        while true {
            if let range = findHeadEnd() {
                let text = String(decoding: buffer[0..<range], as: UTF8.self)
                buffer.removeFirst(range)
                var lines = text.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                var headers: [(String, String)] = []
                for line in lines where !line.isEmpty {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
                }
                return (RawHead(status: statusLine.count > 1 ? Int(statusLine[1]) ?? 0 : 0, headers: headers), nil)
            }
            if let end = fill() { return (nil, end) }
        }
    }

    private func findHeadEnd() -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i + 4
        }
        return nil
    }

    /// Reads exactly `count` bytes unless the connection ends first.
    func readBody(count: Int) -> (body: [UInt8], end: RawEnd?) {
        while buffer.count < count {
            if let end = fill() {
                let body = buffer
                buffer.removeAll()
                return (body, end)
            }
        }
        let body = Array(buffer[0..<count])
        buffer.removeFirst(count)
        return (body, nil)
    }

    /// Reads until the connection ends or `limit` bytes arrived.
    func readToEnd(limit: Int = 64 << 20) -> (body: [UInt8], end: RawEnd) {
        while buffer.count < limit {
            if let end = fill() {
                let body = buffer
                buffer.removeAll()
                return (body, end)
            }
        }
        let body = buffer
        buffer.removeAll()
        return (body, .limitReached)
    }

    /// Decodes a chunked body (nil if the framing is broken).
    func readChunked() -> [UInt8]? {
        var out: [UInt8] = []
        while true {
            guard let line = readLine(), let size = Int(line.split(separator: ";")[0], radix: 16) else { return nil }
            if size == 0 {
                _ = readLine()
                return out
            }
            let (chunk, end) = readBody(count: size)
            guard end == nil else { return nil }
            out += chunk
            guard readLine() == "" else { return nil }
        }
    }

    private func readLine() -> String? {
        while true {
            if let i = buffer.indices.dropLast().first(where: { buffer[$0] == 13 && buffer[$0 + 1] == 10 }) {
                let line = String(decoding: buffer[0..<i], as: UTF8.self)
                buffer.removeFirst(i + 2)
                return line
            }
            if fill() != nil { return nil }
        }
    }

    /// A GET request for `target` on `port`'s origin.
    static func get(_ target: String, headers: [String] = [], close: Bool = true) -> String {
        var text = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for h in headers { text += h + "\r\n" }
        if close { text += "Connection: close\r\n" }
        return text + "\r\n"
    }
}

/// The path and query of an absolute URL.
func pathAndQuery(_ url: String) -> String {
    let u = URL(string: url)!
    return u.path + (u.query.map { "?" + $0 } ?? "")
}

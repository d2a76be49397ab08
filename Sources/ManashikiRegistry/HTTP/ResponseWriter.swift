import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Sends a `ServerResponse`, optionally damaged by a `BodyFault`.
enum ResponseWriter {
    private static let chunkSize = 256 << 10

    /// Sends `response`. Returns whether the connection may carry another request.
    static func send(_ response: ServerResponse, on connection: HTTPConnection, headOnly: Bool = false,
                     keepAlive: Bool, fault: BodyFault? = nil) -> Bool {
        do {
            return try sendThrowing(response, on: connection, headOnly: headOnly, keepAlive: keepAlive, fault: fault)
        } catch {
            return false
        }
    }

    private static func sendThrowing(_ response: ServerResponse, on c: HTTPConnection, headOnly: Bool,
                                     keepAlive: Bool, fault: BodyFault?) throws -> Bool {
        let body = response.body
        let framing = Framing(fault, length: body.length, keepAlive: keepAlive && !response.closeConnection)
        if case .reset(_, let beforeHead) = fault, beforeHead {
            POSIXSocket.reset(c.fd)
            return false
        }

        var head = "HTTP/1.1 \(response.status) \(ServerResponse.reason(response.status))\r\n"
        head += "Date: \(HTTPDate.now())\r\nServer: manashiki-registry\r\n"
        for field in response.headers { head += "\(field.name): \(field.value)\r\n" }
        if let declared = framing.declared { head += "Content-Length: \(declared)\r\n" }
        if framing.chunked { head += "Transfer-Encoding: chunked\r\n" }
        head += framing.keep ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        try c.writeHead(head)
        if headOnly { return framing.keep }
        guard try sendBody(body, on: c, fault: fault) else { return false }
        return framing.keep
    }

    /// How a (possibly faulted) body is framed: its declared length, chunking, and whether the
    /// connection stays open after it.
    private struct Framing {
        var keep: Bool
        var declared: Int64?
        var chunked = false

        init(_ fault: BodyFault?, length: Int64, keepAlive: Bool) {
            keep = keepAlive
            declared = length
            switch fault {
            case .none, .corrupt, .slowDrip: break
            case .truncate(_, let declare):
                if !declare { declared = nil }
                keep = false
            case .extra(let count, let declare):
                declared = declare ? count.map { length + $0 } : nil
                keep = false
            case .noContentLength(let isChunked):
                declared = nil
                chunked = isChunked
                if !isChunked { keep = false }
            case .stall, .reset:
                keep = false
            }
        }
    }

    /// Sends `body` as `fault` says; false when a stop ended it early.
    private static func sendBody(_ body: ResponseBody, on c: HTTPConnection, fault: BodyFault?) throws -> Bool {
        let length = body.length
        switch fault {
        case .none:
            try sendPlain(body, on: c)
        case .truncate(let kept, _):
            try sendBytes(body, from: 0, count: min(length, kept ?? length / 2), on: c)
        case .corrupt(let offset):
            let target = offset ?? (body.sourceOffset + length / 2)
            try forEachChunk(body, from: 0, count: length) { bytes, sourcePosition in
                let index = target - sourcePosition
                if index >= 0, index < Int64(bytes.count) {
                    var copy = [UInt8](bytes)
                    copy[Int(index)] ^= 0xFF
                    try copy.withUnsafeBytes { try c.write($0) }
                } else {
                    try c.write(bytes)
                }
            }
        case .extra(let count, _):
            try sendPlain(body, on: c)
            let junk = [UInt8](repeating: 0x5A, count: chunkSize)
            var remaining = count ?? Int64.max
            while remaining > 0, !c.stop.isStopped {
                let n = Int(min(remaining, Int64(junk.count)))
                try junk.withUnsafeBytes { try c.write(UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
                remaining -= Int64(n)
            }
        case .noContentLength(let isChunked):
            if isChunked {
                try forEachChunk(body, from: 0, count: length) { bytes, _ in
                    try c.write(Data((String(bytes.count, radix: 16) + "\r\n").utf8))
                    try c.write(bytes)
                    try c.write(Data("\r\n".utf8))
                }
                try c.write(Data("0\r\n\r\n".utf8))
            } else {
                try sendPlain(body, on: c)
            }
        case .slowDrip(let chunkBytes, let interval):
            var sent: Int64 = 0
            while sent < length {
                let n = min(Int64(max(1, chunkBytes)), length - sent)
                try sendBytes(body, from: sent, count: n, on: c)
                sent += n
                if sent < length, !c.stop.sleep(interval) { return false }
            }
        case .stall(let afterBytes):
            try sendBytes(body, from: 0, count: min(afterBytes, length), on: c)
            while !c.stop.isStopped, !POSIXSocket.peerClosed(c.fd, waiting: 100) {}
        case .reset(let afterBytes, _):
            try sendBytes(body, from: 0, count: min(afterBytes, length), on: c)
            POSIXSocket.reset(c.fd)
        }
        return true
    }

    /// The unfaulted path: `sendfile(2)` for files, one write for memory.
    private static func sendPlain(_ body: ResponseBody, on c: HTTPConnection) throws {
        switch body {
        case .empty: break
        case .data(let d): try c.write(d)
        case .file(let path, let offset, let length):
            guard length > 0 else { return }
            let file = open(path, O_RDONLY)
            guard file >= 0 else { throw SocketError(operation: "open(\(path))", code: errno) }
            defer { close(file) }
            try c.send(file: file, offset: offset, count: length)
        }
    }

    /// Sends `count` body bytes starting `from` bytes into the body.
    private static func sendBytes(_ body: ResponseBody, from: Int64, count: Int64, on c: HTTPConnection) throws {
        guard count > 0 else { return }
        try forEachChunk(body, from: from, count: count) { bytes, _ in try c.write(bytes) }
    }

    /// Reads the body in pieces; `visit` gets each piece and its position in the source.
    private static func forEachChunk(_ body: ResponseBody, from: Int64, count: Int64,
                                     _ visit: (UnsafeRawBufferPointer, Int64) throws -> Void) throws {
        guard count > 0 else { return }
        switch body {
        case .empty: return
        case .data(let d):
            var position = Int(from)
            let end = Int(from + count)
            try d.withUnsafeBytes { all in
                while position < end {
                    let n = min(chunkSize, end - position)
                    try visit(UnsafeRawBufferPointer(rebasing: all[position..<(position + n)]), Int64(position))
                    position += n
                }
            }
        case .file(let path, let offset, _):
            let file = open(path, O_RDONLY)
            guard file >= 0 else { throw SocketError(operation: "open(\(path))", code: errno) }
            defer { close(file) }
            var chunk = [UInt8](repeating: 0, count: chunkSize)
            var position = offset + from
            let end = position + count
            while position < end {
                let want = Int(min(Int64(chunkSize), end - position))
                let n = chunk.withUnsafeMutableBytes { pread(file, $0.baseAddress, want, off_t(position)) }
                if n <= 0 { throw SocketError(operation: "pread(\(path))", code: n < 0 ? errno : EIO) }
                try chunk.withUnsafeBytes { try visit(UnsafeRawBufferPointer(rebasing: $0.prefix(n)), position) }
                position += Int64(n)
            }
        }
    }
}

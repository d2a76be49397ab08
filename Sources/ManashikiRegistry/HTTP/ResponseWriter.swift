import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Sends a `ServerResponse`, optionally damaged by a body-level fault: `RegistryFault.Kind` is
/// the one description of the damage (its cases' documentation is what this writer does, in
/// their units); a kind that is not about the body (a request-level fault, `ignoreRange`,
/// `replacedObject`…) leaves the body as it is.
enum ResponseWriter {
    private static let chunkSize = 256 << 10

    /// Sends `response`. Returns whether the connection may carry another request.
    static func send(_ response: ServerResponse, on connection: HTTPConnection, headOnly: Bool = false,
                     keepAlive: Bool, fault: RegistryFault.Kind? = nil) -> Bool {
        do {
            return try sendThrowing(response, on: connection, headOnly: headOnly, keepAlive: keepAlive, fault: fault)
        } catch {
            return false
        }
    }

    private static func sendThrowing(_ response: ServerResponse, on c: HTTPConnection, headOnly: Bool,
                                     keepAlive: Bool, fault: RegistryFault.Kind?) throws -> Bool {
        let body = response.body
        let framing = Framing(fault, length: body.length, keepAlive: keepAlive && !response.closeConnection)
        if case .connectionReset(afterBytes: nil)? = fault {
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

        init(_ fault: RegistryFault.Kind?, length: Int64, keepAlive: Bool) {
            keep = keepAlive
            declared = length
            switch fault {
            case .truncatedBody(_, let declare)?:
                if !declare { declared = nil }
                keep = false
            case .extraBytes(let count, let declare)?:
                declared = declare ? count.map { length + Int64($0) } : nil
                keep = false
            case .noContentLength(let isChunked)?:
                declared = nil
                chunked = isChunked
                if !isChunked { keep = false }
            case .expireMidBody?, .stall?, .connectionReset?:
                keep = false
            default:
                break
            }
        }
    }

    /// Sends `body` as `fault` says; false when a stop ended it early.
    private static func sendBody(_ body: ResponseBody, on c: HTTPConnection, fault: RegistryFault.Kind?) throws -> Bool {
        let length = body.length
        switch fault {
        case .truncatedBody(let kept, _)?:
            try sendBytes(body, from: 0, count: min(length, kept.map(Int64.init) ?? length / 2), on: c)
        case .expireMidBody(let afterBytes)?:
            try sendBytes(body, from: 0, count: min(length, Int64(afterBytes)), on: c)
        case .corruptByte(let offset)?:
            try sendCorrupted(body, at: offset.map(Int64.init) ?? (body.sourceOffset + length / 2), on: c)
        case .extraBytes(let count, _)?:
            try sendPlain(body, on: c)
            try sendJunk(count.map(Int64.init) ?? Int64.max, on: c)
        case .noContentLength(let isChunked)?:
            if isChunked { try sendChunked(body, on: c) } else { try sendPlain(body, on: c) }
        case .slowDrip(let chunkBytes, let intervalMilliseconds)?:
            return try sendSlowly(body, chunkBytes: chunkBytes, interval: Double(intervalMilliseconds) / 1000, on: c)
        case .stall(let afterBytes)?:
            try sendBytes(body, from: 0, count: min(Int64(afterBytes), length), on: c)
            while !c.stop.isStopped, !POSIXSocket.peerClosed(c.fd, waiting: 100) {}
        case .connectionReset(let afterBytes)?:
            try sendBytes(body, from: 0, count: min(Int64(afterBytes ?? 0), length), on: c)
            POSIXSocket.reset(c.fd)
        default:
            try sendPlain(body, on: c)
        }
        return true
    }

    /// The body with every bit of the byte at `target` (a position in the body's source) flipped.
    private static func sendCorrupted(_ body: ResponseBody, at target: Int64, on c: HTTPConnection) throws {
        try forEachChunk(body, from: 0, count: body.length) { bytes, sourcePosition in
            let index = target - sourcePosition
            if index >= 0, index < Int64(bytes.count) {
                var copy = [UInt8](bytes)
                copy[Int(index)] ^= 0xFF
                try copy.withUnsafeBytes { try c.write($0) }
            } else {
                try c.write(bytes)
            }
        }
    }

    /// `count` junk bytes (`Int64.max`: until the client hangs up or the server stops).
    private static func sendJunk(_ count: Int64, on c: HTTPConnection) throws {
        let junk = [UInt8](repeating: 0x5A, count: chunkSize)
        var remaining = count
        while remaining > 0, !c.stop.isStopped {
            let n = Int(min(remaining, Int64(junk.count)))
            try junk.withUnsafeBytes { try c.write(UnsafeRawBufferPointer(rebasing: $0.prefix(n))) }
            remaining -= Int64(n)
        }
    }

    /// The body in the chunked transfer coding.
    private static func sendChunked(_ body: ResponseBody, on c: HTTPConnection) throws {
        try forEachChunk(body, from: 0, count: body.length) { bytes, _ in
            try c.write(Data((String(bytes.count, radix: 16) + "\r\n").utf8))
            try c.write(bytes)
            try c.write(Data("\r\n".utf8))
        }
        try c.write(Data("0\r\n\r\n".utf8))
    }

    /// `chunkBytes` every `interval` seconds; false when a stop ended it early.
    private static func sendSlowly(_ body: ResponseBody, chunkBytes: Int, interval: Double, on c: HTTPConnection) throws -> Bool {
        let length = body.length
        var sent: Int64 = 0
        while sent < length {
            let n = min(Int64(max(1, chunkBytes)), length - sent)
            try sendBytes(body, from: sent, count: n, on: c)
            sent += n
            if sent < length, !c.stop.sleep(interval) { return false }
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

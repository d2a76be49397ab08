import Foundation

/// Why a request head could not be parsed; each maps to the status the server answers.
enum HTTPParseError: Error, Equatable {
    /// 400: malformed request line or header.
    case badRequest(String)
    /// 431: the head is larger than the limit.
    case headersTooLarge
    /// 505: not HTTP/1.0 or HTTP/1.1.
    case versionNotSupported
    /// 501: a transfer coding this server does not accept in requests.
    case notImplemented(String)

    /// The status code to answer with.
    var status: Int {
        switch self {
        case .badRequest: 400
        case .headersTooLarge: 431
        case .versionNotSupported: 505
        case .notImplemented: 501
        }
    }

    /// A sentence describing the problem.
    var message: String {
        switch self {
        case .badRequest(let why): why
        case .headersTooLarge: "the request head is too large"
        case .versionNotSupported: "only HTTP/1.0 and HTTP/1.1 are supported"
        case .notImplemented(let why): why
        }
    }
}

/// Parses HTTP/1.x request heads (RFC 9112): the request line and header fields.
enum HTTPParser {
    /// Finds the end of the head (the index just past `\r\n\r\n`) in `bytes`, scanning from `from`.
    static func headEnd(in bytes: [UInt8], from: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var i = max(0, from - 3)
        while i + 3 < bytes.count {
            if bytes[i] == 13, bytes[i + 1] == 10, bytes[i + 2] == 13, bytes[i + 3] == 10 { return i + 4 }
            i += 1
        }
        return nil
    }

    /// Parses the head `bytes` (request line and headers, ending with an empty line).
    static func parseHead(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> (request: ServerRequest, contentLength: Int) {
        guard let text = String(bytes: bytes, encoding: .isoLatin1) else { throw .badRequest("unreadable request head") }
        var lines = text.components(separatedBy: "\r\n")
        while lines.first == "" { lines.removeFirst() } // tolerate stray CRLFs before the request line
        guard let requestLine = lines.first else { throw .badRequest("empty request") }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw .badRequest("malformed request line")
        }
        let method = String(parts[0])
        guard method.utf8.allSatisfy({ isTokenByte($0) }) else { throw .badRequest("malformed method") }
        let target = String(parts[1])
        guard target.hasPrefix("/") || target == "*", target.utf8.allSatisfy({ $0 > 32 && $0 < 127 }) else {
            throw .badRequest("malformed request target")
        }
        let minor: Int
        switch parts[2] {
        case "HTTP/1.1": minor = 1
        case "HTTP/1.0": minor = 0
        default:
            if parts[2].hasPrefix("HTTP/") { throw .versionNotSupported }
            throw .badRequest("malformed HTTP version")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() where !line.isEmpty {
            if line.first == " " || line.first == "\t" { throw .badRequest("obsolete header line folding") }
            guard let colon = line.firstIndex(of: ":") else { throw .badRequest("header line without a colon") }
            let name = String(line[..<colon])
            guard !name.isEmpty, name.utf8.allSatisfy({ isTokenByte($0) }) else { throw .badRequest("malformed header name") }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            headers.append((name, value))
        }
        let split = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var request = ServerRequest(method: method, target: target, path: String(split[0]),
                                    query: split.count > 1 ? String(split[1]) : nil, minorVersion: minor, headers: headers)
        if !request.headerValues("Transfer-Encoding").isEmpty {
            throw .notImplemented("chunked request bodies are not accepted; send Content-Length")
        }
        let lengths = request.headerValues("Content-Length").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var contentLength = 0
        if let first = lengths.first {
            guard lengths.allSatisfy({ $0 == first }), first.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  first.utf8.count <= 15, let n = Int(first) else {
                throw .badRequest("invalid Content-Length")
            }
            contentLength = n
        }
        if minor == 1, request.header("Host") == nil { throw .badRequest("HTTP/1.1 request without Host") }
        request.body = Data()
        return (request, contentLength)
    }

    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }
}

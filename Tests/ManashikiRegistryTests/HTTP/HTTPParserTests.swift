import Foundation
import Testing
@testable import ManashikiRegistry

@Suite("HTTP request parsing")
struct HTTPParserTests {
    static func parse(_ text: String) throws(HTTPParseError) -> (ServerRequest, Int) {
        let bytes = Array(text.utf8)
        let (request, length) = try HTTPParser.parseHead(bytes[0..<bytes.count])
        return (request, length)
    }

    @Test("a request line, headers, query and Content-Length are parsed")
    func parsesHead() throws {
        let (request, length) = try Self.parse("POST /api/session?a=1&b=x%20y HTTP/1.1\r\nHost: h\r\nX-API-Key:  k \r\nContent-Length: 12\r\n\r\n")
        #expect(request.method == "POST")
        #expect(request.path == "/api/session")
        #expect(request.query == "a=1&b=x%20y")
        #expect(request.queryItems["b"] == "x y")
        #expect(request.header("x-api-key") == "k")
        #expect(length == 12)
        #expect(request.wantsKeepAlive)
    }

    @Test("keep-alive follows the version and the Connection header")
    func keepAlive() throws {
        #expect(try Self.parse("GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n").0.wantsKeepAlive == false)
        #expect(try Self.parse("GET / HTTP/1.0\r\n\r\n").0.wantsKeepAlive == false)
        #expect(try Self.parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").0.wantsKeepAlive == true)
    }

    @Test("malformed heads are rejected with the right status")
    func rejects() {
        let cases: [(String, Int)] = [
            ("GET /\r\n\r\n", 400),
            ("GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505),
            ("GET / HTTP/1.1\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h\r\nBad Header: x\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1, 2\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400),
            ("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", 501),
            ("GET nothing HTTP/1.1\r\nHost: h\r\n\r\n", 400),
        ]
        for (text, status) in cases {
            #expect(throws: HTTPParseError.self, "\(text.debugDescription)") { try Self.parse(text) }
            do {
                _ = try Self.parse(text)
            } catch {
                #expect(error.status == status, "\(text.debugDescription)")
            }
        }
    }
}

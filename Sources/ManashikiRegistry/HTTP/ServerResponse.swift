import Foundation

/// The body of a response: nothing, bytes in memory, or a slice of a file (sent with
/// `sendfile(2)` on the unfaulted path).
enum ResponseBody {
    /// No body.
    case empty
    /// Bytes in memory.
    case data(Data)
    /// `length` bytes of the file at `path`, from `offset`.
    case file(path: String, offset: Int64, length: Int64)

    /// The number of body bytes.
    var length: Int64 {
        switch self {
        case .empty: 0
        case .data(let d): Int64(d.count)
        case .file(_, _, let length): length
        }
    }

    /// Where the body starts in its source (0 for in-memory bodies).
    var sourceOffset: Int64 {
        if case .file(_, let offset, _) = self { return offset }
        return 0
    }
}

/// A response the origins build and `ResponseWriter` sends.
struct ServerResponse {
    /// The status code.
    var status: Int
    /// Header fields besides the framing ones (`Content-Length`, `Transfer-Encoding`,
    /// `Connection`), which the writer adds.
    var headers: [(name: String, value: String)] = []
    /// The body.
    var body: ResponseBody = .empty
    /// Close the connection after this response.
    var closeConnection = false

    /// A JSON response.
    static func json(_ status: Int, _ object: Any) -> ServerResponse {
        ServerResponse(status: status, headers: [("Content-Type", "application/json")], body: .data(JSONBody.encode(object)))
    }

    /// The contract's error response: `{"error": {"code", "message"}}`.
    static func error(_ status: Int, _ code: String, _ message: String) -> ServerResponse {
        ServerResponse(status: status, headers: [("Content-Type", "application/json")],
                       body: .data(JSONBody.error(code: code, message: message)))
    }

    /// An HTML page, as a proxy or load balancer would answer.
    static func html(_ status: Int) -> ServerResponse {
        let reason = ServerResponse.reason(status)
        let page = "<!DOCTYPE html>\n<html><head><title>\(status) \(reason)</title></head>\n<body><center><h1>\(status) \(reason)</h1></center>\n<hr><center>manashiki-registry (injected fault)</center></body></html>\n"
        return ServerResponse(status: status, headers: [("Content-Type", "text/html; charset=utf-8")], body: .data(Data(page.utf8)))
    }

    /// The reason phrase for a status code.
    static func reason(_ status: Int) -> String {
        switch status {
        case 100: "Continue"
        case 200: "OK"
        case 201: "Created"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 409: "Conflict"
        case 410: "Gone"
        case 411: "Length Required"
        case 413: "Content Too Large"
        case 416: "Range Not Satisfiable"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 501: "Not Implemented"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        case 505: "HTTP Version Not Supported"
        default: "Status \(status)"
        }
    }
}

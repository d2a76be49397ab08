import Foundation

/// A parsed HTTP/1.x request head, as the registry's origins see it.
struct ServerRequest: Sendable {
    /// `GET`, `POST`…
    var method: String
    /// The request target exactly as sent (`/api/models?x=1`).
    var target: String
    /// The target without its query string.
    var path: String
    /// The query string without `?`, or nil when there is none.
    var query: String?
    /// 0 for HTTP/1.0, 1 for HTTP/1.1.
    var minorVersion: Int
    /// The header fields in order, names as sent.
    var headers: [(name: String, value: String)]
    /// The body, once read (Content-Length bodies only).
    var body = Data()
    /// Whether the peer is on a loopback address.
    var fromLoopback = true

    /// The first value of a header, matched case-insensitively.
    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    /// All values of a header, matched case-insensitively.
    func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// Whether the connection should stay open after this request.
    var wantsKeepAlive: Bool {
        let tokens = headerValues("Connection").flatMap { $0.lowercased().split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        if tokens.contains("close") { return false }
        return minorVersion >= 1 || tokens.contains("keep-alive")
    }

    /// The path split into percent-decoded segments (`/api/models/x` → `["api", "models", "x"]`).
    var segments: [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map { String($0).removingPercentEncoding ?? String($0) }
    }

    /// The query parameters (last value wins).
    var queryItems: [String: String] {
        var out: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0]).removingPercentEncoding ?? String(parts[0])
            let value = parts.count > 1 ? (String(parts[1]).removingPercentEncoding ?? String(parts[1])) : ""
            out[name] = value
        }
        return out
    }
}

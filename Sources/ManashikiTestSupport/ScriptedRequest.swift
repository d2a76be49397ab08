import Foundation

/// One request a `ScriptedOrigin` received: the request line and every header, as sent.
package struct ScriptedRequest: Sendable {
    /// The method (`GET`, `HEAD`…).
    package var method: String
    /// The request target (path and query).
    package var target: String
    /// Header lines in order (name as sent, value trimmed).
    package var headers: [(String, String)]
    /// The target without its query.
    package var path: String { String(target.split(separator: "?", maxSplits: 1).first ?? "") }
    /// The first header called `name` (any case).
    package func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    /// Whether a header called `name` was sent.
    package func hasHeader(_ name: String) -> Bool { header(name) != nil }
}

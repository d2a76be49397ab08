import Foundation

/// Readable text for a `DecodingError`: the JSON path and what was wrong. The one place a
/// `DecodingError` becomes words (API answers, versioned files).
package enum DecodingErrorText {
    /// `models[3].sha256` (the key a `keyNotFound` names included), dropping the first
    /// `depth` components; nil for the document itself.
    package static func path(of error: DecodingError, droppingFirst depth: Int = 0) -> String? {
        let all: [any CodingKey]
        switch error {
        case .keyNotFound(let key, let ctx): all = ctx.codingPath + [key]
        case .typeMismatch(_, let ctx), .valueNotFound(_, let ctx), .dataCorrupted(let ctx): all = ctx.codingPath
        @unknown default: return nil
        }
        var out = ""
        for key in all.dropFirst(min(depth, all.count)) {
            if let i = key.intValue { out += "[\(i)]" } else { out += out.isEmpty ? key.stringValue : ".\(key.stringValue)" }
        }
        return out.isEmpty ? nil : out
    }

    /// What was wrong at the path, for a file: `is missing`, `has the wrong type (expected String)`.
    package static func reason(of error: DecodingError) -> String {
        switch error {
        case .keyNotFound: return "is missing"
        case .typeMismatch(let type, _): return "has the wrong type (expected \(type))"
        case .valueNotFound: return "is null"
        case .dataCorrupted: return "is not valid"
        @unknown default: return "is not valid"
        }
    }

    /// The path and what was wrong, for an API answer: `models[0].size is not an integer`.
    /// - Parameter relativeTo: leading path components to leave out (the path of the value being
    ///   decoded, when the error is about one element).
    static func describe(_ error: DecodingError, relativeTo depth: Int = 0) -> String {
        let path = path(of: error, droppingFirst: depth) ?? (depth == 0 ? "the answer" : "the entry")
        switch error {
        case .keyNotFound: return "\(path) is missing"
        case .typeMismatch(let type, _): return "\(path) is not \(typeName(type))"
        case .valueNotFound(let type, _): return "\(path) is null, expected \(typeName(type))"
        case .dataCorrupted(let ctx):
            return ctx.codingPath.isEmpty ? "not valid JSON" : "\(path) is invalid"
        @unknown default: return "undecodable"
        }
    }

    static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: return "a string"
        case is Int.Type, is Int64.Type: return "an integer"
        case is Double.Type: return "a number"
        case is Bool.Type: return "a boolean"
        default: return type == [Any].self ? "an array" : "of the expected type"
        }
    }
}

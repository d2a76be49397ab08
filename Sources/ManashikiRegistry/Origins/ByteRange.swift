import Foundation

/// A single-range `Range: bytes=…` header (RFC 9110 §14.2), resolved against an object size.
enum ByteRange: Equatable {
    /// No usable range (absent, malformed, multiple ranges or not bytes): answer 200.
    case none
    /// The range starts beyond the object: answer 416.
    case unsatisfiable
    /// Bytes `first...last` (inclusive).
    case range(first: Int64, last: Int64)

    /// Parses `bytes=N-`, `bytes=N-M` and `bytes=-S`.
    static func parse(_ header: String, total: Int64) -> ByteRange {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes=") else { return .none }
        let spec = value.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .none }
        let startText = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let endText = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        func number(_ s: String) -> Int64? { s.isEmpty || !s.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) ? nil : Int64(s) }
        if startText.isEmpty {
            guard let suffix = number(endText) else { return .none }
            guard suffix > 0, total > 0 else { return .unsatisfiable }
            return .range(first: max(0, total - suffix), last: total - 1)
        }
        guard let first = number(startText) else { return .none }
        var last = total - 1
        if !endText.isEmpty {
            guard let end = number(endText), end >= first else { return .none }
            last = min(end, total - 1)
        }
        guard first < total else { return .unsatisfiable }
        return .range(first: first, last: last)
    }
}

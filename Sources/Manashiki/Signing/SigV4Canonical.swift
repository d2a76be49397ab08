import Foundation

/// The canonical forms Signature Version 4 signs (the AWS General Reference, "Create a
/// canonical request"): URI encoding of every byte outside RFC 3986's unreserved set, the
/// canonical URI, query and headers, and the `yyyyMMdd'T'HHmmss'Z'` timestamp.
package enum SigV4Canonical {
    /// `A-Z a-z 0-9 - . _ ~`: the bytes SigV4 never encodes.
    static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// `bytes` with every byte outside the unreserved set as `%XX` (uppercase hex); `/` kept
    /// when `keepingSlash` (an S3 key in a path: `a b/ü+$.bin` → `a%20b/%C3%BC%2B%24.bin`).
    package static func encode<S: Sequence>(_ bytes: S, keepingSlash: Bool = false) -> String where S.Element == UInt8 {
        let digits = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            if isUnreserved(byte) || (keepingSlash && byte == UInt8(ascii: "/")) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The text's UTF-8 bytes, encoded (`encode(_:keepingSlash:)`).
    package static func encode(_ text: String, keepingSlash: Bool = false) -> String {
        encode(Array(text.utf8), keepingSlash: keepingSlash)
    }

    /// The bytes a percent-encoded string stands for (`%XX` decoded, everything else as is; a
    /// malformed `%` is kept literally).
    static func decode(_ text: Substring) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%"), i + 2 < bytes.count, let high = hexValue(bytes[i + 1]), let low = hexValue(bytes[i + 2]) {
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return out
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// The canonical URI of a percent-encoded path: decoded, then every byte encoded once,
    /// slashes kept. S3 signs the path exactly so (no normalisation, no second encoding); other
    /// services also remove `.`/`..` segments and empty ones (`normalizing`).
    static func uri(_ percentEncodedPath: String, normalizing: Bool) -> String {
        var path = decode(Substring(percentEncodedPath))
        if normalizing { path = normalized(path) }
        guard !path.isEmpty else { return "/" }
        return encode(path, keepingSlash: true)
    }

    /// `path` without `.`, `..` and empty segments (RFC 3986 §5.2.4), a trailing slash kept.
    private static func normalized(_ path: [UInt8]) -> [UInt8] {
        var segments: [ArraySlice<UInt8>] = []
        for segment in path.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            if segment.elementsEqual(".".utf8) { continue }
            if segment.elementsEqual("..".utf8) { _ = segments.popLast(); continue }
            segments.append(segment)
        }
        var out: [UInt8] = [UInt8(ascii: "/")]
        out += segments.joined(separator: [UInt8(ascii: "/")])
        if !segments.isEmpty, path.last == UInt8(ascii: "/") { out.append(UInt8(ascii: "/")) }
        return out
    }

    /// The canonical query of a percent-encoded query: each `name=value` decoded and encoded
    /// again, sorted by name then value (byte order); `uploads` becomes `uploads=`.
    static func query(_ percentEncodedQuery: String?) -> String {
        guard let percentEncodedQuery, !percentEncodedQuery.isEmpty else { return "" }
        let pairs = percentEncodedQuery.split(separator: "&", omittingEmptySubsequences: true).map { item -> (String, String) in
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let value = parts.count > 1 ? decode(parts[1]) : []
            return (encode(decode(parts[0])), encode(value))
        }
        return pairs.sorted { $0.0 == $1.0 ? $0.1.utf8.lexicographicallyPrecedes($1.1.utf8) : $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    }

    /// The canonical headers block (`name:value\n` each, names lowercased and sorted, values of
    /// one name joined by commas in order, spaces trimmed and runs of them collapsed) and the
    /// signed-headers list (`host;x-amz-date`).
    static func headers(_ fields: [(name: String, value: String)]) -> (block: String, signed: String) {
        var values: [String: [String]] = [:]
        for field in fields { values[field.name.lowercased(), default: []].append(collapsed(field.value)) }
        let names = values.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        let block = names.map { "\($0):\(values[$0]!.joined(separator: ","))\n" }.joined()
        return (block, names.joined(separator: ";"))
    }

    /// A header value trimmed, each run of spaces and tabs as one space.
    private static func collapsed(_ value: String) -> String {
        value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// The `Host` value a client sends for `url`: the host, and the port unless it is the
    /// scheme's default (curl and URLSession leave a default port out).
    static func host(of url: URL) -> String? {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), var host = components.host else { return nil }
        if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
        let scheme = components.scheme?.lowercased()
        if let port = components.port, !(scheme == "https" && port == 443), !(scheme == "http" && port == 80) {
            return "\(host.lowercased()):\(port)"
        }
        return host.lowercased()
    }

    /// `20130524T000000Z` and `20130524` for `date` (UTC).
    static func timestamp(_ date: Date) -> (full: String, day: String) {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Days since 1970-01-01 to a civil date (Howard Hinnant's days_from_civil, inverted).
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let dayText = "\(year)\(two(month))\(two(day))"
        let time = "\(two(secondOfDay / 3600))\(two(secondOfDay / 60 % 60))\(two(secondOfDay % 60))"
        return (dayText + "T" + time + "Z", dayText)
    }
}

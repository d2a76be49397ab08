import Foundation

/// One challenge of a `WWW-Authenticate` header (RFC 9110 §11.6.1): `Bearer realm="…",
/// service="…", scope="…"` or `Basic realm="…"`.
struct OCIChallenge: Sendable, Hashable {
    /// `bearer` or `basic` (lowercased).
    var scheme: String
    /// The auth-params, names lowercased.
    var parameters: [String: String]

    var realm: String? { parameters["realm"] }
    var service: String? { parameters["service"] }
    var scope: String? { parameters["scope"] }

    /// Every challenge in the header values (several may share one value, comma-separated).
    static func parse(_ values: [String]) -> [OCIChallenge] {
        var out: [OCIChallenge] = []
        for value in values {
            var scanner = Substring(value)
            var current: OCIChallenge?
            while true {
                skip(&scanner, while: { $0 == " " || $0 == "," || $0 == "\t" })
                guard !scanner.isEmpty else { break }
                let token = take(&scanner, while: { !" ,=\t".contains($0) })
                guard !token.isEmpty else { scanner = scanner.dropFirst(); continue }
                skip(&scanner, while: { $0 == " " || $0 == "\t" })
                if scanner.first == "=" {
                    scanner = scanner.dropFirst()
                    skip(&scanner, while: { $0 == " " || $0 == "\t" })
                    let v = scanner.first == "\"" ? quoted(&scanner) : String(take(&scanner, while: { $0 != "," }).trimmingCharacters(in: .whitespaces))
                    current?.parameters[token.lowercased()] = v
                } else {
                    if let c = current { out.append(c) }
                    current = OCIChallenge(scheme: token.lowercased(), parameters: [:])
                }
            }
            if let c = current { out.append(c) }
        }
        return out
    }

    private static func skip(_ s: inout Substring, while p: (Character) -> Bool) {
        while let c = s.first, p(c) { s = s.dropFirst() }
    }

    private static func take(_ s: inout Substring, while p: (Character) -> Bool) -> Substring {
        let taken = s.prefix(while: p)
        s = s[taken.endIndex...]
        return taken
    }

    private static func quoted(_ s: inout Substring) -> String {
        s = s.dropFirst()
        var out = ""
        while let c = s.first {
            s = s.dropFirst()
            if c == "\\", let next = s.first { out.append(next); s = s.dropFirst(); continue }
            if c == "\"" { break }
            out.append(c)
        }
        return out
    }
}

import Foundation

/// A proxy named by an environment variable (`http://user:password@proxy.corp:3128`).
///
/// Its text form (`description`) is the address and the variable only: the user name and
/// password are handed to libcurl and never appear in a message, a log or `--json`.
struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    /// Why a variable's value is not a usable proxy URL (never quoting the value: it may hold a password).
    struct Invalid: Error {
        var reason: String
    }

    /// The schemes libcurl speaks to a proxy.
    static let schemes = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// The variable that named it (`https_proxy`, `HTTP_PROXY`…).
    let variable: String
    /// `http`, `https`, `socks5`…
    let scheme: String
    /// The host name or IP address (IPv6 without brackets).
    let host: String
    /// The port, libcurl's default for the scheme when the URL gives none.
    let port: Int
    /// Whether the URL carries a user name (and password) for the proxy.
    let hasCredentials: Bool
    /// The URL as libcurl takes it (`CURLOPT_PROXY`), credentials included: never print it.
    let curlURL: String

    /// Parses `value`; a value without a scheme (`proxy.corp:3128`) is an HTTP proxy, as in
    /// libcurl, Go and Python.
    init(variable: String, value: String) throws(Invalid) {
        let text = value.contains("://") ? value : "http://" + value
        guard let components = URLComponents(string: text) else {
            throw Invalid(reason: "it is not a URL (write it as http://host:port)")
        }
        let scheme = (components.scheme ?? "").lowercased()
        guard Self.schemes.contains(scheme) else {
            throw Invalid(reason: "its scheme is not one of \(Self.schemes.joined(separator: ", ")) (write it as http://host:port)")
        }
        var host = components.percentEncodedHost ?? ""
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { throw Invalid(reason: "it names no host (write it as http://host:port)") }
        if let port = components.port, !(1...65535).contains(port) {
            throw Invalid(reason: "its port is not between 1 and 65535")
        }
        // Foundation takes `user:p@ss@host` and `user:pa ss@host` (splitting at the last `@`,
        // encoding what it must); libcurl refuses them and then reports the proxy's name as
        // unresolvable, a retryable error. Check the text as written and say what to do.
        let mustEncode = Invalid(reason: "its user name or password holds a character that must be percent-encoded (@ as %40, : as %3A, / as %2F, ? as %3F, # as %23, space as %20, % as %25)")
        let rest = text[text.range(of: "://")!.upperBound...]
        let authority = rest.prefix { !"/?#".contains($0) }
        if let at = authority.lastIndex(of: "@"), !authority[..<at].split(separator: ":", maxSplits: 1).allSatisfy({ Self.isPercentEncoded(String($0)) }) {
            throw mustEncode
        }
        // `user:2024/x@proxy:3128` parses as host `user`, port 2024: a `/`, `?` or `#` in the
        // password ends the authority early, and the user name (to DNS, in messages) and the
        // password's digits (as the port) would leak. An `@` after the authority is such a
        // password: a proxy URL has no use for a path.
        if !authority.contains("@"), rest.dropFirst(authority.count).contains("@") { throw mustEncode }
        self.variable = variable
        self.scheme = scheme
        self.host = host
        // libcurl's defaults: 1080 for HTTP and SOCKS proxies, 443 for HTTPS proxies.
        self.port = components.port ?? (scheme == "https" ? 443 : 1080)
        hasCredentials = components.percentEncodedUser.map { !$0.isEmpty } ?? false
        curlURL = text
    }

    /// Whether `text` holds only what RFC 3986 allows in userinfo (unreserved characters,
    /// sub-delimiters, `%` with two hex digits).
    static func isPercentEncoded(_ text: String) -> Bool {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&'()*+,;=".utf8)
        let bytes = Array(text.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, Character(Unicode.Scalar(bytes[i + 1])).isHexDigit,
                      Character(Unicode.Scalar(bytes[i + 2])).isHexDigit else { return false }
                i += 3
            } else {
                guard allowed.contains(bytes[i]) else { return false }
                i += 1
            }
        }
        return true
    }

    /// `host:port` (`[::1]:3128` for IPv6), for messages.
    var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// `127.0.0.1:3128 (from https_proxy)`: no credentials.
    var description: String { "\(address) (from \(variable))" }
}

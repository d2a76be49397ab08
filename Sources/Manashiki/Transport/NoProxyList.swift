import Foundation

/// A `no_proxy` list: the hosts that are reached directly although a proxy is set.
///
/// libcurl's syntax and matching (`CURLOPT_NOPROXY`), plus the port and `*.` forms Go and
/// Python accept, so a list written for either works here:
/// - entries are separated by commas and/or blanks (line breaks too); case does not matter;
/// - `*` alone matches every host;
/// - a name matches itself and every subdomain: `example.com` and `.example.com` (and
///   `*.example.com`) match `example.com` and `www.example.com`, not `notexample.com`;
///   trailing dots are ignored;
/// - an IP address matches that address, `10.0.0.0/8` or `fd00::/8` a range (CIDR);
///   IPv6 addresses are written without brackets (`::1`, `fd00::/8`), or bracketed (`[fd00::]/8`,
///   with a port `[::1]:8080`);
/// - `host:port` (`registry.corp:8443`, `[::1]:8080`) matches that host on that port only.
///
/// Host names are compared as written: `localhost` does not match `127.0.0.1`, and loopback is
/// not exempt by itself (unlike Go): list it (`no_proxy=localhost,127.0.0.1,::1`).
struct NoProxyList: Sendable, Hashable {
    /// One entry of the list.
    struct Entry: Sendable, Hashable {
        /// Lowercased, without brackets, leading `*.`/`.` or trailing dots; an IP may carry `/bits`.
        var pattern: String
        /// The only port it applies to, or nil for every port.
        var port: Int?
    }

    /// The entries, in order.
    let entries: [Entry]
    /// Whether the list is (or contains) `*`.
    let matchesAll: Bool

    /// Parses the variable's value.
    init(_ text: String) {
        // Any blank or line break separates too (a CRLF environment file ends the value in \r).
        let tokens = text.split { $0 == "," || $0.isWhitespace }.map(String.init)
        matchesAll = tokens.contains("*")
        entries = tokens.compactMap(Self.entry)
    }

    private static func entry(_ token: String) -> Entry? {
        var pattern = token.lowercased()
        var port: Int?
        if pattern.hasPrefix("["), let close = pattern.firstIndex(of: "]") {
            // [v6], [v6]:port or [v6]/bits
            let rest = pattern[pattern.index(after: close)...]
            if rest.hasPrefix(":") { port = Int(rest.dropFirst()) }
            pattern = String(pattern[pattern.index(after: pattern.startIndex)..<close]) + (rest.hasPrefix("/") ? String(rest) : "")
        } else if pattern.filter({ $0 == ":" }).count == 1, let colon = pattern.firstIndex(of: ":"),
                  let p = Int(pattern[pattern.index(after: colon)...]) {
            // host:port (a single colon: more than one is an IPv6 address)
            port = p
            pattern = String(pattern[..<colon])
        }
        if pattern.hasPrefix("*.") { pattern.removeFirst(2) } else if pattern.hasPrefix(".") { pattern.removeFirst() }
        while pattern.hasSuffix(".") { pattern.removeLast() }
        return pattern.isEmpty ? nil : Entry(pattern: pattern, port: port)
    }

    /// Whether a request to `host` (without brackets) on `port` goes direct.
    func matches(host: String, port: Int) -> Bool {
        if matchesAll { return true }
        var name = host.lowercased()
        while name.hasSuffix(".") { name.removeLast() }
        guard !name.isEmpty else { return false }
        let address = IPAddress(name)
        return entries.contains { entry in
            if let p = entry.port, p != port { return false }
            if let address { return address.isIn(entry.pattern) }
            return name == entry.pattern || name.hasSuffix("." + entry.pattern)
        }
    }
}

/// An IPv4 or IPv6 address as bytes, for CIDR comparisons.
private struct IPAddress {
    var bytes: [UInt8]

    init?(_ text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            bytes = withUnsafeBytes(of: &v4) { Array($0) }
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            bytes = withUnsafeBytes(of: &v6) { Array($0) }
        } else {
            return nil
        }
    }

    /// Whether this address is `pattern` (an address, or `address/bits`) of the same family.
    func isIn(_ pattern: String) -> Bool {
        let parts = pattern.split(separator: "/", maxSplits: 1).map(String.init)
        guard let first = parts.first, let network = IPAddress(first), network.bytes.count == bytes.count else { return false }
        let total = bytes.count * 8
        var bits = total
        if parts.count == 2 {
            guard let b = Int(parts[1]), (0...total).contains(b) else { return false }
            bits = b
        }
        for i in 0..<bytes.count where bits > i * 8 {
            let take = min(8, bits - i * 8)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - take))
            if bytes[i] & mask != network.bytes[i] & mask { return false }
        }
        return true
    }
}

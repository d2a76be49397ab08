import Foundation

/// The one answer to "is this host this machine?": `localhost` (any case, with or without
/// the root dot), an IPv4 address in `127.0.0.0/8`, or `::1` (bracketed or not, short or
/// long). A name that merely starts with `127.` (`127.example.com`) is not loopback.
///
/// Plain http is allowed only to these hosts (SDK, manifest, OCI references), the development
/// registry binds only to them unless told otherwise, and a refused connection to one of
/// them gets the "nothing is listening on this machine" hint.
package enum LoopbackHost {
    /// Whether `host` (a URL's host or a bind address) names this machine.
    package static func matches(_ host: String) -> Bool {
        var h = host.lowercased()
        if h.hasPrefix("[") && h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if isLocalhostName(h) || h == "::1" || h == "0:0:0:0:0:0:0:1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "127" else { return false }
        return parts.allSatisfy { p in !p.isEmpty && p.count <= 3 && p.allSatisfy { $0.isASCII && $0.isNumber } && Int(p)! <= 255 }
    }

    /// Whether `host` is the name `localhost` (any case, with or without the root dot), as
    /// opposed to an address.
    package static func isLocalhostName(_ host: String) -> Bool {
        let h = host.lowercased()
        return h == "localhost" || h == "localhost."
    }
}

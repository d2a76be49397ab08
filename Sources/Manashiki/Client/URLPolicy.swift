import Foundation
import ManashikiCore

/// Which URLs the SDK connects to (CONTRACT §3): `https` anywhere, `http` only to a loopback
/// host, never credentials in the URL, never any other scheme.
public enum URLPolicy {
    /// Why `url` is refused, or nil if it is allowed. The reason never contains the URL's
    /// path or query (signed URLs carry secrets there).
    public static func refusal(for url: URL) -> String? { refusal(for: url, allowingPlainHTTP: false) }

    /// Like `refusal(for:)`; with `allowingPlainHTTP`, http to any host is allowed too (for a
    /// mirror the operator marked so: every byte from it is verified against its digest).
    package static func refusal(for url: URL, allowingPlainHTTP: Bool) -> String? {
        guard let scheme = url.scheme?.lowercased() else { return "it has no scheme" }
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "it is malformed" }
        if components.user != nil || components.password != nil { return "it carries credentials before the host" }
        guard let host = components.host, !host.isEmpty else { return "it has no host" }
        switch scheme {
        case "https": return nil
        case "http": return allowingPlainHTTP || LoopbackHost.matches(host) ? nil : "plain http to \(host) is not encrypted; only https, or http to this machine, is allowed"
        default: return "the \(scheme): scheme is not allowed"
        }
    }

    /// Whether two URLs share scheme, host and port.
    public static func sameOrigin(_ a: URL, _ b: URL) -> Bool {
        a.scheme?.lowercased() == b.scheme?.lowercased() && a.host?.lowercased() == b.host?.lowercased()
            && effectivePort(a) == effectivePort(b)
    }

    static func effectivePort(_ url: URL) -> Int? {
        url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
    }

    /// `scheme://host[:port]` only: safe to print.
    public static func origin(of url: URL) -> String {
        "\(url.scheme ?? "?")://\(url.host ?? "?")\(url.port.map { ":\($0)" } ?? "")"
    }
}

import Foundation

/// An API key the development registry accepts. The tier follows from the prefix (CONTRACT §1).
///
/// ```swift
/// RegistryKey(secret: "mk_pub_acme_0123456789abcdefghij")   // client tier, org "acme"
/// RegistryKey(secret: "sk_live_0123456789abcdefghij")       // legacy server key, sees every org
/// ```
public struct RegistryKey: Sendable, Hashable {
    /// The key's format, from its prefix.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// `mk_pub_<org>_…`: publishable, client tier.
        case publishable = "mk_pub_"
        /// `mk_live_<org>_…`: server tier.
        case live = "mk_live_"
        /// `mk_svc_<org>_…`: server tier (service account).
        case service = "mk_svc_"
        /// `sk_live_…`: legacy server key; the only kind that may issue sessions.
        case legacy = "sk_live_"
    }

    /// The secret clients send as `X-API-Key`.
    public let secret: String
    /// The key's format.
    public let kind: Kind
    /// The organisation whose private models the key sees; nil sees every organisation.
    public var organization: String?

    /// Whether the key is a server key (`mk_live_`, `mk_svc_`, `sk_live_`).
    public var isServerKey: Bool { kind != .publishable }
    /// Whether the registry issues sessions for this key (`sk_live_` only).
    public var canIssueSessions: Bool { kind == .legacy }

    /// A key whose kind follows from its prefix and whose organisation defaults to the slug
    /// inside `mk_*` keys (nil for `sk_live_`). A secret with an unknown prefix is taken as a
    /// publishable key; use `init(validating:)` to reject it instead.
    public init(secret: String, organization: String? = nil) {
        self.secret = secret
        let parsed = RegistryKey.parse(secret)
        self.kind = parsed?.kind ?? .publishable
        self.organization = organization ?? parsed?.organization
    }

    /// A key, or nil when `secret` matches none of the contract's key patterns.
    public init?(validating secret: String, organization: String? = nil) {
        guard RegistryKey.parse(secret) != nil else { return nil }
        self.init(secret: secret, organization: organization)
    }

    /// Whether `secret` matches one of the contract's key patterns.
    public static func isValid(_ secret: String) -> Bool { parse(secret) != nil }

    private static func parse(_ s: String) -> (kind: Kind, organization: String?)? {
        func isAlnum(_ b: UInt8) -> Bool { (b >= 48 && b <= 57) || (b >= 65 && b <= 90) || (b >= 97 && b <= 122) }
        func isSlugStart(_ b: UInt8) -> Bool { (b >= 48 && b <= 57) || (b >= 97 && b <= 122) }
        for kind in Kind.allCases where s.hasPrefix(kind.rawValue) {
            let rest = Array(s.utf8.dropFirst(kind.rawValue.utf8.count))
            if kind == .legacy {
                return rest.count >= 20 && rest.allSatisfy(isAlnum) ? (kind, nil) : nil
            }
            // <org>_<secret>: the org may contain '-' but not '_', so split at the last '_'.
            guard let underscore = rest.lastIndex(of: UInt8(ascii: "_")), underscore > 0 else { return nil }
            let org = rest[..<underscore], tail = rest[(underscore + 1)...]
            guard isSlugStart(org.first!), org.allSatisfy({ isSlugStart($0) || $0 == UInt8(ascii: "-") }),
                  tail.count >= 20, tail.allSatisfy(isAlnum) else { return nil }
            return (kind, String(decoding: org, as: UTF8.self))
        }
        return nil
    }
}

import Foundation

/// A validated Manashiki API key.
///
/// Keys are checked locally against the published formats before any network traffic
/// (CONTRACT §1). The secret itself is never printed: `description`, `debugDescription`
/// and `dump` show only the kind and the organisation.
///
/// ```swift
/// let key = try APIKey("mk_pub_acme_0123456789abcdefghij")
/// key.tier          // .client
/// key.organization  // "acme"
/// ```
public struct APIKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What a key may do.
    public enum Tier: String, Sendable, Hashable, Codable {
        /// A publishable key (`mk_pub_`): the only kind that may ship inside an app binary.
        /// It can list and download, but never mint sessions or upload.
        case client
        /// A server key (`mk_live_`, `mk_svc_`, `sk_live_`): keep it on servers only.
        case server
    }

    /// The key's format, from its prefix.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// `mk_pub_<org>_…`: publishable, client tier.
        case publishable = "mk_pub_"
        /// `mk_live_<org>_…`: server tier.
        case live = "mk_live_"
        /// `mk_svc_<org>_…`: server tier, for service accounts.
        case service = "mk_svc_"
        /// `sk_live_…`: legacy server key; the only kind that can issue sessions today.
        case legacy = "sk_live_"

        /// The tier this kind of key belongs to.
        public var tier: Tier { self == .publishable ? .client : .server }
    }

    /// The secret, sent only as `X-API-Key` to the API origin.
    package let secret: String
    /// The key's format.
    public let kind: Kind
    /// The organisation slug embedded in `mk_*` keys (`mk_pub_acme_…` → `acme`); nil for legacy keys.
    public let organization: String?

    /// The key's tier.
    public var tier: Tier { kind.tier }
    /// Whether the key may call server-only methods (`createSession`, `createModelUpload`).
    public var isServerKey: Bool { tier == .server }
    /// Whether the server will mint sessions for this key (only legacy `sk_live_` keys today).
    public var canIssueSessions: Bool { kind == .legacy }

    /// Validates `string` as an API key. No trimming: surrounding whitespace is invalid.
    /// - Throws: `APIError.invalidAPIKey` when the string matches none of the published formats.
    public init(_ string: String) throws {
        guard let (kind, org) = APIKey.parse(string) else { throw APIError.invalidAPIKey }
        self.secret = string
        self.kind = kind
        self.organization = org
    }

    /// Why this key must not ship inside an app binary, or nil for a publishable (`mk_pub_`)
    /// key, the only kind that may (SDK guide §2, CONTRACT §1). Names the kind, never the secret.
    /// `ManashikiClient` logs it once per process when it is created inside an app bundle.
    public var appEmbeddingWarning: String? {
        guard tier == .server else { return nil }
        return "a server key (\(description)) is used inside an app. Anyone can extract it from the app binary and use it to mint sessions for private models or upload artifacts. Ship only a publishable mk_pub_ key in apps; keep \(kind.rawValue) keys on your backend, revoke this one in the dashboard and issue a new one."
    }

    /// Whether `string` has the format of an API key, without creating one.
    public static func isValid(_ string: String) -> Bool { parse(string) != nil }

    /// A redacted form safe for logs: `mk_pub_acme_…`.
    public var description: String {
        if let organization { return "\(kind.rawValue)\(organization)_…" }
        return "\(kind.rawValue)…"
    }

    /// Same as `description`: the secret never appears.
    public var debugDescription: String { "APIKey(\(description))" }

    /// Mirror without the secret, so `dump(key)` cannot leak it.
    public var customMirror: Mirror {
        Mirror(self, children: ["kind": kind, "organization": organization as Any], displayStyle: .struct)
    }

    private static func parse(_ s: String) -> (Kind, String?)? {
        let bytes = Array(s.utf8)
        func isLowerAlnum(_ b: UInt8) -> Bool { (b >= 97 && b <= 122) || (b >= 48 && b <= 57) }
        func isAlnum(_ b: UInt8) -> Bool { isLowerAlnum(b) || (b >= 65 && b <= 90) }
        for kind in Kind.allCases {
            let prefix = Array(kind.rawValue.utf8)
            guard bytes.count > prefix.count, Array(bytes[0..<prefix.count]) == prefix else { continue }
            let rest = bytes[prefix.count...]
            if kind == .legacy {
                return rest.count >= 20 && rest.allSatisfy(isAlnum) ? (kind, nil) : nil
            }
            // <org>_<random>: org is [a-z0-9][a-z0-9-]*, random is [A-Za-z0-9]{20,}.
            // The org part cannot contain '_', so the first '_' ends it.
            guard let sep = rest.firstIndex(of: UInt8(ascii: "_")) else { return nil }
            let org = bytes[rest.startIndex..<sep]
            let random = bytes[(sep + 1)...]
            guard let first = org.first, isLowerAlnum(first),
                  org.allSatisfy({ isLowerAlnum($0) || $0 == UInt8(ascii: "-") }),
                  random.count >= 20, random.allSatisfy(isAlnum)
            else { return nil }
            return (kind, String(decoding: org, as: UTF8.self))
        }
        return nil
    }
}

import Foundation

/// A session token for downloading private models, issued by `createSession(principalId:ttlSec:)`.
///
/// The token is a secret: `description`, `debugDescription` and `dump` never show it.
/// Hand `token` to the app, which passes it to `downloadModel(_:session:)`.
public struct ModelSession: Codable, Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The bearer token (`mks_…`). Secret.
    public var token: String
    /// Who the session was issued for.
    public var principalId: String
    /// When the token stops working.
    public var expiresAt: Date

    /// Creates a session value.
    public init(token: String, principalId: String, expiresAt: Date) {
        self.token = token
        self.principalId = principalId
        self.expiresAt = expiresAt
    }

    private enum CodingKeys: String, CodingKey { case token, principalId, expiresAt }

    /// Decodes `{"token", "principalId", "expiresAt"}`; `expiresAt` must be an ISO 8601 date.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        token = try c.decode(String.self, forKey: .token)
        principalId = try c.decode(String.self, forKey: .principalId)
        let raw = try c.decode(String.self, forKey: .expiresAt)
        guard let date = ISO8601.date(from: raw) else {
            throw DecodingError.dataCorruptedError(forKey: .expiresAt, in: c, debugDescription: "expiresAt is not an ISO 8601 date")
        }
        expiresAt = date
    }

    /// Encodes the wire form, `expiresAt` as ISO 8601.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(token, forKey: .token)
        try c.encode(principalId, forKey: .principalId)
        try c.encode(ISO8601.string(from: expiresAt), forKey: .expiresAt)
    }

    /// Redacted: the token never appears.
    public var description: String { "ModelSession(principalId: \(principalId), expiresAt: \(ISO8601.string(from: expiresAt)), token: <redacted>)" }
    /// Redacted: the token never appears.
    public var debugDescription: String { description }
    /// Mirror without the token.
    public var customMirror: Mirror {
        Mirror(self, children: ["principalId": principalId, "expiresAt": expiresAt], displayStyle: .struct)
    }
}

/// The body of `POST /api/session`.
struct CreateSessionBody: Encodable {
    var principalId: String
    var ttlSec: Int
}

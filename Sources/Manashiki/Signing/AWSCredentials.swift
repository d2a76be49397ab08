import Foundation

/// One set of AWS credentials (an access key, its secret, and a session token for temporary
/// ones), with when they expire and where they were found.
///
/// Printing, interpolating or dumping it shows the access key id and the origin only, never the
/// secret or the token, so a log line or an error message cannot leak them.
package struct AWSCredentials: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// The access key id (`AKIA…`, `ASIA…` for temporary credentials). Not a secret on its own.
    package var accessKeyId: String
    /// The secret access key.
    package var secretAccessKey: String
    /// The session token of temporary credentials (STS, a container's or an instance's role).
    package var sessionToken: String?
    /// When temporary credentials stop working; nil for long-term keys.
    package var expiration: Date?
    /// Where they came from, for messages: `environment`, `profile ci (~/.aws/credentials)`…
    package var origin: String

    /// Credentials.
    package init(accessKeyId: String, secretAccessKey: String, sessionToken: String? = nil, expiration: Date? = nil, origin: String) {
        self.accessKeyId = accessKeyId
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken.flatMap { $0.isEmpty ? nil : $0 }
        self.expiration = expiration
        self.origin = origin
    }

    /// Whether they must be replaced by `date` (expired, or within `margin` of expiring).
    package func expires(within margin: TimeInterval, of date: Date = Date()) -> Bool {
        guard let expiration else { return false }
        return expiration.timeIntervalSince(date) <= margin
    }

    /// `AWS credentials AKIA… from <origin>`: never the secret or the token.
    package var description: String { "AWS credentials \(accessKeyId) from \(origin)" }
    /// Without the secret or the token.
    package var customMirror: Mirror {
        Mirror(self, children: ["accessKeyId": accessKeyId, "origin": origin, "expiration": expiration as Any], displayStyle: .struct)
    }
}

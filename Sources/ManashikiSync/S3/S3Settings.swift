import Foundation

/// How requests name the bucket.
public enum S3Addressing: String, Sendable, Hashable, CaseIterable {
    /// Path-style whenever an endpoint is set (MinIO, Ceph RGW, SeaweedFS, R2 and most
    /// self-hosted stores want it), virtual-hosted on AWS unless the bucket name cannot be a
    /// host name (dots, upper case, `_`).
    case auto
    /// `https://endpoint/bucket/key`.
    case path
    /// `https://bucket.endpoint/key`.
    case virtual
}

/// Where a bucket's credentials come from. Only references: never a key in the manifest.
public enum S3CredentialSource: Sendable, Hashable, CustomStringConvertible {
    /// The AWS SDKs' chain, in order: the environment (`AWS_ACCESS_KEY_ID`…), the shared
    /// credentials and config files (`AWS_PROFILE`), web identity (`AWS_ROLE_ARN` +
    /// `AWS_WEB_IDENTITY_TOKEN_FILE`), container credentials, EC2 instance metadata (IMDSv2).
    /// When none has credentials, requests are anonymous. The default.
    case chain
    /// No credentials: unsigned requests, for a public bucket (no metadata service is asked).
    case anonymous
    /// A profile of the shared credentials and config files (`~/.aws/credentials`,
    /// `~/.aws/config`, or `AWS_SHARED_CREDENTIALS_FILE`/`AWS_CONFIG_FILE`).
    case profile(String)
    /// Environment variables of these names hold the access key id, the secret and optionally a
    /// session token (for a bucket whose keys differ from the process's `AWS_*` ones).
    case environment(accessKeyId: String, secretAccessKey: String, sessionToken: String?)

    /// Where they come from, never a secret.
    public var description: String {
        switch self {
        case .chain: return "the AWS credential chain"
        case .anonymous: return "anonymous"
        case .profile(let name): return "profile \(name)"
        case .environment(let id, let secret, let token):
            return "environment variables \(id), \(secret)" + (token.map { ", \($0)" } ?? "")
        }
    }
}

/// A bucket as a source or an export target: where it is and how to reach it.
///
/// ```json
/// {"s3": "s3://models/site-a/", "endpoint": "https://minio.site:9000", "region": "us-east-1",
///  "addressing": "auto", "credentials": {"profile": "models-reader"}, "requesterPays": false}
/// ```
public struct S3Settings: Sendable, Hashable, CustomStringConvertible {
    /// The bucket and prefix.
    public var location: S3Location
    /// The endpoint (`https://minio.site:9000`); nil: `AWS_ENDPOINT_URL_S3`, `AWS_ENDPOINT_URL`,
    /// the profile's `endpoint_url`, else AWS (`https://s3.<region>.amazonaws.com`).
    public var endpoint: URL?
    /// The region requests are signed for; nil: `AWS_REGION`, `AWS_DEFAULT_REGION`, the
    /// profile's `region`, else `us-east-1`, corrected once from what the bucket answers.
    public var region: String?
    /// Path-style or virtual-hosted requests.
    public var addressing: S3Addressing
    /// Where the credentials come from.
    public var credentials: S3CredentialSource
    /// Send `x-amz-request-payer: requester` (a Requester Pays bucket bills the reader).
    public var requesterPays: Bool
    /// Plain http to a host other than this machine was explicitly allowed.
    public var allowsPlainHTTP: Bool

    /// Settings for `location`, everything else from the environment.
    public init(_ location: S3Location, endpoint: URL? = nil, region: String? = nil, addressing: S3Addressing = .auto,
                credentials: S3CredentialSource = .chain, requesterPays: Bool = false, allowsPlainHTTP: Bool = false) {
        self.location = location
        self.endpoint = endpoint
        self.region = region
        self.addressing = addressing
        self.credentials = credentials
        self.requesterPays = requesterPays
        self.allowsPlainHTTP = allowsPlainHTTP
    }

    /// Whether `text` is a region name (`eu-west-1`: letters, digits and `-`).
    package static func isRegion(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 64 && text.unicodeScalars.allSatisfy { ($0.isASCII && CharacterSet.alphanumerics.contains($0)) || $0 == "-" }
    }

    /// `s3://bucket/prefix/` (and ` at <endpoint>` when one is set).
    public var description: String {
        location.description + (endpoint.map { " at \($0.absoluteString)" } ?? "")
    }
}

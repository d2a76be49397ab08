import Foundation
import Manashiki

/// Why a bucket could not be used: the operation, the bucket and key, the HTTP status and S3's
/// error code, what the store said, and what to do. Never a secret (the access key id and the
/// credentials' origin at most).
///
/// `S3 PutObject s3://models/site-a/blobs/sha256/9f86…: HTTP 403 AccessDenied (Access Denied) —
/// the credentials from profile ci (~/.aws/credentials) may not s3:PutObject on
/// arn:aws:s3:::models/site-a/*: grant it, or use other credentials`
public struct S3Error: Error, Sendable, LocalizedError, CustomStringConvertible {
    /// What kind of failure it is (code decides by this, never by the text).
    public enum Kind: String, Sendable, Hashable {
        /// The store answered with an error.
        case response
        /// The store could not be reached (network, TLS, proxy): `apiError` says how.
        case unreachable
        /// A setting is wrong (an endpoint, a URL, a region), found before any request.
        case configuration
        /// Credentials could not be found or fetched (a profile, STS, the metadata service).
        case credentials
    }

    /// The kind.
    public var kind: Kind
    /// The S3 API operation (`PutObject`, `UploadPart`, `ListObjectsV2`…), when there was one.
    public var operation: String?
    /// The bucket.
    public var bucket: String?
    /// The key, when the operation names one.
    public var key: String?
    /// The HTTP status.
    public var status: Int?
    /// S3's error code (`AccessDenied`, `NoSuchBucket`, `SignatureDoesNotMatch`, `SlowDown`…).
    public var code: String?
    /// What happened, in the store's words or ours.
    public var message: String
    /// What to do.
    public var hint: String
    /// The store's request id (for its operator), when it sent one.
    public var requestId: String?
    /// The region the store says the bucket is in (`x-amz-bucket-region`, `<Region>`).
    public var region: String?
    /// The SDK error behind an `unreachable` failure.
    public var apiError: APIError?
    /// Attempts made.
    public var attempts = 1

    /// Whether trying again later can help (503 `SlowDown`, 500, the network).
    public var isRetryable: Bool {
        switch kind {
        case .unreachable: return apiError?.isRetryable ?? true
        case .response: return code == "SlowDown" || code == "RequestTimeout" || code == "InternalError" || (status ?? 0) >= 500 || status == 429
        case .configuration, .credentials: return false
        }
    }

    /// Whether someone must change a setting (credentials, a policy, the endpoint, a bucket
    /// name) before the bucket can serve: a source with such a problem is reported with each
    /// model it would have served, not once.
    public var isConfigurationProblem: Bool {
        switch kind {
        case .configuration, .credentials: return true
        case .unreachable: return false
        case .response: return status == 403 || status == 301 || status == 400 || code == "NoSuchBucket"
        }
    }

    /// `S3 <operation> s3://bucket/key: HTTP <status> <code> (<message>) — <hint>`.
    public var description: String {
        var head = "S3"
        if let operation { head += " \(operation)" }
        if let bucket { head += " s3://\(bucket)/\(key ?? "")" }
        var what: [String] = []
        if let status { what.append("HTTP \(status)") }
        if let code { what.append(code) }
        var text = head + ": " + (what.isEmpty ? message : what.joined(separator: " ") + (message.isEmpty || message == code ? "" : " (\(message))"))
        if attempts > 1 { text += " after \(attempts) attempts" }
        if let requestId { text += " [request id \(requestId)]" }
        return hint.isEmpty ? text : text + " — " + hint
    }

    /// The description.
    public var errorDescription: String? { description }

    /// A setting that is wrong.
    static func configuration(_ message: String, hint: String) -> S3Error {
        S3Error(kind: .configuration, message: message, hint: hint)
    }

    /// Credentials that could not be found or fetched.
    static func credentials(_ message: String, hint: String) -> S3Error {
        S3Error(kind: .credentials, message: message, hint: hint)
    }

    /// The retry policy's view of it: `rateLimited` for `SlowDown`/429 (honouring
    /// `Retry-After`), `server` for a 5xx, the transport's own error when unreachable.
    func retryError(retryAfter: Int?) -> APIError {
        if let apiError { return apiError }
        if code == "SlowDown" || status == 429 || status == 503 { return .rateLimited(retryAfter: retryAfter) }
        return .server(status: status ?? 500, message: code)
    }
}

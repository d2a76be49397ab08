import Foundation
import ManashikiCore

/// AWS Signature Version 4 (`AWS4-HMAC-SHA256`), the one signer of the package, on the Core's
/// HMAC-SHA256 and SHA-256: an `Authorization` header (`sign`) or a presigned URL (`presign`).
///
/// Written for S3 and the services it needs (STS): the canonical URI is the request's path with
/// every byte of the key encoded once (`a b/ü+$.bin` → `/a%20b/%C3%BC%2B%24.bin`), never
/// normalised, as S3 requires; other services also get `.`/`..` and empty segments removed
/// (`normalizesPath`). Checked against AWS's Signature Version 4 test suite and the S3 API
/// reference's worked examples (`SigV4SignerTests`).
///
/// What is signed: `host`, every header the request carries except those a proxy or the
/// transport may change (`unsignedHeaders`: `User-Agent`, `Expect`, `Accept-Encoding`…), and
/// the ones the signer adds: `x-amz-date`, `x-amz-security-token` for temporary credentials,
/// and for S3 `x-amz-content-sha256` (the payload's SHA-256, which for a whole blob is the
/// digest the index already names, or `UNSIGNED-PAYLOAD`). `x-amz-request-payer` and
/// `x-amz-meta-*` are signed like any header the caller sets.
///
/// ```swift
/// let signer = SigV4Signer(region: "eu-west-1")
/// let signed = signer.sign(request, credentials: credentials, date: Date(), payloadHash: SigV4Signer.emptyPayloadHash)
/// ```
package struct SigV4Signer: Sendable, Hashable {
    /// The algorithm name.
    package static let algorithm = "AWS4-HMAC-SHA256"
    /// The SHA-256 of no bytes: the payload hash of a GET, HEAD or DELETE.
    package static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    /// The payload hash of a request whose body is not signed (a presigned URL).
    package static let unsignedPayload = "UNSIGNED-PAYLOAD"
    /// Headers never signed: a proxy or the transport may add, drop or rewrite them.
    package static let unsignedHeaders: Set<String> = [
        "authorization", "user-agent", "expect", "connection", "keep-alive", "proxy-authorization", "proxy-connection",
        "te", "trailer", "transfer-encoding", "upgrade", "accept-encoding", "x-amzn-trace-id", "content-length",
    ]

    /// The region in the credential scope (`us-east-1`…).
    package var region: String
    /// The service in the credential scope (`s3`, `sts`).
    package var service: String
    /// Whether the canonical URI drops `.`/`..` and empty segments (every service but S3).
    package var normalizesPath: Bool

    /// A signer for `service` in `region` (paths normalised for every service but S3).
    package init(region: String, service: String = "s3", normalizesPath: Bool? = nil) {
        self.region = region
        self.service = service
        self.normalizesPath = normalizesPath ?? (service != "s3")
    }

    /// `request` with `x-amz-date`, the session token, for S3 `x-amz-content-sha256`, and the
    /// `Authorization` header.
    /// - Parameter payloadHash: the body's SHA-256 in lowercase hex, `emptyPayloadHash`, or `unsignedPayload`.
    package func sign(_ request: HTTPRequest, credentials: AWSCredentials, date: Date, payloadHash: String) -> HTTPRequest {
        var signed = request
        let stamp = SigV4Canonical.timestamp(date)
        signed.headers["Authorization"] = nil
        signed.headers["X-Amz-Date"] = stamp.full
        if let token = credentials.sessionToken { signed.headers["X-Amz-Security-Token"] = token }
        if service == "s3" { signed.headers["X-Amz-Content-SHA256"] = payloadHash }
        let (canonical, signedHeaders) = canonicalRequest(signed, payloadHash: payloadHash)
        let scope = scope(day: stamp.day)
        let signature = signature(secret: credentials.secretAccessKey, day: stamp.day, stringToSign: stringToSign(canonical, timestamp: stamp.full, scope: scope))
        signed.headers["Authorization"] = "\(Self.algorithm) Credential=\(credentials.accessKeyId)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)"
        return signed
    }

    /// A presigned URL for `method` on `url` (query-string authentication): valid for `expires`
    /// seconds from `date` (at most 604,800), signing only `host`, the payload unsigned. The
    /// session token travels in the URL: treat the URL as the credential it is.
    package func presign(_ url: URL, method: String = "GET", credentials: AWSCredentials, date: Date, expires: Int) -> URL? {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        let stamp = SigV4Canonical.timestamp(date)
        let scope = scope(day: stamp.day)
        var parameters = [("X-Amz-Algorithm", Self.algorithm), ("X-Amz-Credential", "\(credentials.accessKeyId)/\(scope)"),
                          ("X-Amz-Date", stamp.full), ("X-Amz-Expires", "\(min(max(1, expires), 604_800))")]
        if let token = credentials.sessionToken { parameters.append(("X-Amz-Security-Token", token)) }
        parameters.append(("X-Amz-SignedHeaders", "host"))
        let added = parameters.map { "\(SigV4Canonical.encode($0.0))=\(SigV4Canonical.encode($0.1))" }.joined(separator: "&")
        let existing = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : $0 }
        components.percentEncodedQuery = existing.map { $0 + "&" + added } ?? added
        guard let unsigned = components.url else { return nil }
        let request = HTTPRequest(method: method, url: unsigned)
        let (canonical, _) = canonicalRequest(request, payloadHash: Self.unsignedPayload, only: ["host"])
        let signature = signature(secret: credentials.secretAccessKey, day: stamp.day, stringToSign: stringToSign(canonical, timestamp: stamp.full, scope: scope))
        components.percentEncodedQuery! += "&X-Amz-Signature=\(signature)"
        return components.url
    }

    /// The canonical request of `request` and its signed-headers list: method, canonical URI,
    /// canonical query, canonical headers (with `host`), signed headers, payload hash.
    /// - Parameter only: sign these headers only (a presigned URL signs `host`).
    package func canonicalRequest(_ request: HTTPRequest, payloadHash: String, only: Set<String>? = nil) -> (String, String) {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        var fields: [(name: String, value: String)] = []
        let hasHost = request.headers.fields.contains { $0.name.lowercased() == "host" }
        if !hasHost, let host = SigV4Canonical.host(of: request.url) { fields.append(("host", host)) }
        for field in request.headers.fields {
            let name = field.name.lowercased()
            if let only { guard only.contains(name) else { continue } } else if Self.unsignedHeaders.contains(name) { continue }
            fields.append((name, field.value))
        }
        let (block, signed) = SigV4Canonical.headers(fields)
        let lines = [request.method.uppercased(), SigV4Canonical.uri(components?.percentEncodedPath ?? "/", normalizing: normalizesPath),
                     SigV4Canonical.query(components?.percentEncodedQuery), block, signed, payloadHash]
        return (lines.joined(separator: "\n"), signed)
    }

    /// `20130524/us-east-1/s3/aws4_request`.
    package func scope(day: String) -> String { "\(day)/\(region)/\(service)/aws4_request" }

    /// The string to sign: algorithm, timestamp, scope and the canonical request's SHA-256.
    package func stringToSign(_ canonicalRequest: String, timestamp: String, scope: String) -> String {
        [Self.algorithm, timestamp, scope, SHA256Hasher.hash(Data(canonicalRequest.utf8)).hex].joined(separator: "\n")
    }

    /// The signing key for `day` (`HMAC(HMAC(HMAC(HMAC("AWS4" + secret, day), region), service), "aws4_request")`).
    package func signingKey(secret: String, day: String) -> [UInt8] {
        let date = HMACSHA256.mac(key: Array("AWS4\(secret)".utf8), message: day)
        let region = HMACSHA256.mac(key: date, message: region)
        let service = HMACSHA256.mac(key: region, message: service)
        return HMACSHA256.mac(key: service, message: "aws4_request")
    }

    /// The hex signature of `stringToSign`.
    package func signature(secret: String, day: String, stringToSign: String) -> String {
        HMACSHA256.hex(key: signingKey(secret: secret, day: day), message: stringToSign)
    }
}

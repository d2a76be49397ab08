import Foundation
import ManashikiCore
import Manashiki

/// One bucket's S3 API over the run's transport (its CA bundle and proxy rules): each request
/// signed with Signature Version 4 (`SigV4Signer`) with the current credentials
/// (`AWSCredentialProvider`), every answer checked in one place (`perform`) that maps it to
/// `S3Error`.
///
/// What real deployments hit, handled in `perform`:
/// - **the bucket's region**: a 301/400/403 naming another region (`x-amz-bucket-region`, the
///   error's `<Region>`) moves the client to that region once and repeats the request (on AWS the
///   host changes with it). The client never follows a `Location` to another host: credentials
///   go to the configured endpoint only.
/// - **a skewed clock**: `RequestTimeTooSkewed` sets the clock offset from the answer's `Date`
///   once and repeats the request.
/// - **expired temporary credentials**: `ExpiredToken` fetches them again once.
/// - **SlowDown, 503, 500, a network failure**: retried with the run's `RetryPolicy` (the one
///   backoff of the package, with jitter; `Retry-After` honoured).
final class S3Client: Sendable {
    let settings: S3Settings
    let transport: any HTTPTransport
    let provider: AWSCredentialProvider
    let retry: RetryPolicy
    let now: @Sendable () -> Date
    private let state: Locked<State>

    struct State: Sendable {
        var endpoint: S3Endpoint
        /// Seconds to add to this machine's clock (from a `RequestTimeTooSkewed` answer).
        var clockOffset: TimeInterval = 0
    }

    /// One request of the S3 API.
    struct Operation: Sendable {
        /// `PutObject`, `UploadPart`…: named in errors.
        var name: String
        var method: String = "GET"
        /// nil: the bucket itself.
        var key: String?
        var query: [(String, String?)] = []
        var headers: HTTPHeaders = [:]
        var body: Data?
        /// The body's SHA-256 (lowercase hex), `SigV4Signer.emptyPayloadHash` or `unsignedPayload`.
        var payloadHash = SigV4Signer.emptyPayloadHash
        /// Non-2xx statuses returned to the caller instead of thrown (404 for `HeadObject`).
        var accepts: Set<Int> = []
        var maxBody = 1 << 20
        var idleTimeout: TimeInterval = 60
    }

    init(settings: S3Settings, endpoint: S3Endpoint, transport: any HTTPTransport, provider: AWSCredentialProvider,
         retry: RetryPolicy, now: @escaping @Sendable () -> Date = { Date() }) {
        self.settings = settings
        self.transport = transport
        self.provider = provider
        self.retry = retry
        self.now = now
        self.state = Locked(State(endpoint: endpoint))
    }

    /// The client for `settings` in `environment`: the endpoint and region resolved, the
    /// credentials' places set up (nothing is fetched yet).
    /// - Throws: `S3Error` (configuration) for an endpoint that cannot be used.
    static func make(_ settings: S3Settings, environment: SyncEnvironment, transport: any HTTPTransport, retry: RetryPolicy) throws -> S3Client {
        let profileName: String? = {
            if case .profile(let name) = settings.credentials { return name }
            return AWSProfile.selectedName(environment.variables).name
        }()
        let profile = profileName.flatMap { AWSProfile.load($0, environment: environment) }
        let endpoint = try S3Endpoint.resolve(settings, variables: environment.variables, profile: profile)
        let provider = AWSCredentialProvider.make(settings.credentials, environment: environment, transport: transport)
        return S3Client(settings: settings, endpoint: endpoint, transport: transport, provider: provider, retry: retry)
    }

    var bucket: String { settings.location.bucket }

    /// The endpoint as it stands (its region may have been corrected).
    var endpoint: S3Endpoint { state.current.endpoint }

    /// `request` signed for now with the current credentials (unchanged when anonymous).
    func sign(_ request: HTTPRequest, payloadHash: String) async throws -> HTTPRequest {
        var request = request
        if settings.requesterPays { request.headers["x-amz-request-payer"] = "requester" }
        guard let credentials = try await provider.credentials() else { return request }
        let (endpoint, offset) = state.withLock { ($0.endpoint, $0.clockOffset) }
        return SigV4Signer(region: endpoint.region).sign(request, credentials: credentials, date: now().addingTimeInterval(offset), payloadHash: payloadHash)
    }

    /// The request of `operation` as the endpoint stands, signed.
    func request(_ operation: Operation) async throws -> HTTPRequest {
        let url = endpoint.url(bucket: bucket, key: operation.key, query: operation.query)
        var headers = operation.headers
        headers["User-Agent"] = ManashikiClient.userAgent
        let request = HTTPRequest(method: operation.method, url: url, headers: headers, body: operation.body,
                                  idleTimeout: operation.idleTimeout, maxBufferedBodyBytes: operation.maxBody,
                                  documentLimits: operation.body == nil ? .default : nil) // an answer read whole is a document (#39)
        return try await sign(request, payloadHash: operation.payloadHash)
    }

    /// Sends `operation`, correcting the region, the clock and expired credentials once each and
    /// retrying what the retry policy retries.
    /// - Returns: a 2xx answer, or one of `operation.accepts`.
    /// - Throws: `S3Error` naming the operation, bucket, key, status and code, with what to do.
    func perform(_ operation: Operation) async throws -> HTTPResponse {
        var attempt = 1
        var corrected: Set<String> = []
        while true {
            try Task.checkCancellation()
            let response: HTTPResponse
            do {
                response = try await transport.send(try await request(operation))
            } catch let error as APIError {
                var failure = unreachable(operation, error)
                if failure.isRetryable && attempt < retry.maxAttempts {
                    try await wait(after: attempt, failure.retryError(retryAfter: nil))
                    attempt += 1
                    continue
                }
                failure.attempts = attempt
                throw failure
            }
            let status = response.status
            if (200..<300).contains(status) || operation.accepts.contains(status) { return response }
            var failure = await S3ResponseCheck.failure(response, operation: operation, client: self)
            if let region = failure.region, region != endpoint.region, corrected.insert("region").inserted {
                state.withLock { $0.endpoint = $0.endpoint.inRegion(region) }
                continue
            }
            if failure.code == "RequestTimeTooSkewed", let server = response.head.headers["Date"].flatMap(HTTPDate.parse), corrected.insert("clock").inserted {
                let offset = server.timeIntervalSince(now())
                state.withLock { $0.clockOffset = offset }
                continue
            }
            if ["ExpiredToken", "TokenRefreshRequired"].contains(failure.code ?? ""), corrected.insert("credentials").inserted {
                _ = try await provider.credentials(refresh: true)
                continue
            }
            if failure.isRetryable && attempt < retry.maxAttempts {
                try await wait(after: attempt, failure.retryError(retryAfter: RetryAfter.seconds(from: response.head.headers["Retry-After"])))
                attempt += 1
                continue
            }
            failure.attempts = attempt
            throw failure
        }
    }

    private func wait(after attempt: Int, _ error: APIError) async throws {
        do { try await retry.sleep(retry.delay(after: attempt, error: error)) } catch { throw CancellationError() }
    }

    private func unreachable(_ operation: Operation, _ error: APIError) -> S3Error {
        var message = error.description
        if case .invalidResponse(let detail) = error { message = "the answer could not be read (\(detail))" }
        return S3Error(kind: .unreachable, operation: operation.name, bucket: bucket, key: operation.key, message: message,
                       hint: "check the endpoint \(endpoint.shown) (from \(endpoint.origin)), the network and any proxy", apiError: error)
    }
}

/// RFC 9110 HTTP-dates (`Date`, `Last-Modified`), as S3 sends them.
enum HTTPDate {
    static func parse(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: text.trimmingCharacters(in: .whitespaces))
    }
}

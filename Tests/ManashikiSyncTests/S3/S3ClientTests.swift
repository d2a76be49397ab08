import Foundation
import ManashikiCore
import Manashiki
import ManashikiTestSupport
import Testing
@testable import ManashikiSync

/// The S3 client's one response check with a closure transport: what real deployments answer
/// (another region, a skewed clock, SlowDown, an expired token, a refusal) and what it does.
/// The same client against a real S3-compatible server is in the CLI's bucket tests.
@Suite("S3 client: region discovery, clock skew, SlowDown backoff, expired tokens, errors that say what to do")
struct S3ClientTests {
    static let secret = "client-test-secret/0123456789abcdefghijk"
    static let variables = ["AWS_ACCESS_KEY_ID": "AKIACLIENTTEST", "AWS_SECRET_ACCESS_KEY": secret, "AWS_EC2_METADATA_DISABLED": "true"]

    /// A client of `s3://models/p/` on AWS (no endpoint) or `endpoint`, sleeps recorded instead of waited.
    static func client(_ transport: MockTransport, endpoint: String? = nil, region: String? = nil, variables: [String: String] = variables,
                       credentials: S3CredentialSource = .chain, requesterPays: Bool = false, sleeps: Locked<[Duration]> = Locked([])) throws -> S3Client {
        var settings = S3Settings(try S3Location.parse("s3://models/p/").get(), endpoint: endpoint.flatMap(URL.init(string:)), region: region,
                                  credentials: credentials, requesterPays: requesterPays)
        settings.allowsPlainHTTP = true
        let retry = RetryPolicy(maxAttempts: 4, sleep: { d in sleeps.withLock { $0.append(d) } }, random: { 0 })
        return try S3Client.make(settings, environment: SyncEnvironment(variables: variables), transport: transport, retry: retry)
    }

    static func xmlError(_ status: Int, _ code: String, _ message: String = "", extra: String = "", headers: HTTPHeaders = [:]) -> MockResponse {
        MockResponse(status: status, headers: headers, chunks: [Data("<?xml version=\"1.0\"?><Error><Code>\(code)</Code><Message>\(message)</Message>\(extra)<RequestId>REQ123</RequestId></Error>".utf8)])
    }

    @Test("a bucket in another region: the 301's x-amz-bucket-region moves the client there once (host and signature scope), never to a Location")
    func regionDiscovery() async throws {
        let mock = MockTransport { request in
            if request.url.host == "models.s3.us-east-1.amazonaws.com" {
                return Self.xmlError(301, "PermanentRedirect", "use the right endpoint", headers: ["x-amz-bucket-region": "eu-west-1", "Location": "https://evil.example/"])
            }
            return MockResponse(status: 200, headers: ["Content-Length": "12", "x-amz-meta-sha256": "ab"])
        }
        let client = try Self.client(mock)
        let head = try #require(try await client.headObject("p/index.json"))
        #expect(head.size == 12 && head.sha256 == "ab")
        #expect(mock.requests.map { $0.url.host ?? "" } == ["models.s3.us-east-1.amazonaws.com", "models.s3.eu-west-1.amazonaws.com"])
        #expect(mock.requests[1].headers["Authorization"]?.contains("/eu-west-1/s3/aws4_request") == true)
        #expect(client.endpoint.region == "eu-west-1")
        // The region is remembered: the next request goes straight there.
        _ = try await client.headObject("p/other")
        #expect(mock.requests.count == 3 && mock.requests[2].url.host == "models.s3.eu-west-1.amazonaws.com")
    }

    @Test("an AuthorizationHeaderMalformed naming the region on a custom endpoint: the signature's region is corrected, the host kept")
    func regionFromErrorBody() async throws {
        let mock = MockTransport { request in
            request.headers["Authorization"]?.contains("/us-east-1/") == true
                ? Self.xmlError(400, "AuthorizationHeaderMalformed", "the region 'us-east-1' is wrong; expecting 'eu-central-1'", extra: "<Region>eu-central-1</Region>")
                : MockResponse(status: 200, chunks: [Data("<ListBucketResult><Contents><Key>p/blobs/sha256/aa</Key><Size>5</Size></Contents></ListBucketResult>".utf8)])
        }
        let objects = try await Self.client(mock, endpoint: "https://minio.site:9000").listObjects(prefix: "p/blobs/sha256/")
        #expect(objects == [S3Client.ListedObject(key: "p/blobs/sha256/aa", size: 5)])
        #expect(mock.requests.allSatisfy { $0.url.host == "minio.site" } && mock.requests.count == 2)
    }

    @Test("RequestTimeTooSkewed: the clock offset is taken from the answer's Date once and the request signed again")
    func clockSkew() async throws {
        let mock = MockTransport { request in
            let date = request.headers["X-Amz-Date"] ?? ""
            return date.hasPrefix("2031") ? MockResponse(status: 200, headers: ["Content-Length": "0"])
                : Self.xmlError(403, "RequestTimeTooSkewed", "The difference between the request time and the current time is too large.",
                                headers: ["Date": "Wed, 01 Jan 2031 12:00:00 GMT"])
        }
        _ = try await Self.client(mock).headObject("p/k")
        #expect(mock.requests.count == 2 && mock.requests[1].headers["X-Amz-Date"]?.hasPrefix("20310101T12") == true, "\(mock.requests.map { $0.headers["X-Amz-Date"] ?? "" })")
    }

    @Test("SlowDown and 503 are retried with the run's retry policy (its backoff), then succeed; a persistent one names the attempts")
    func slowDown() async throws {
        let count = Locked(0)
        let mock = MockTransport { _ in
            let n = count.withLock { $0 += 1; return $0 }
            return n <= 2 ? Self.xmlError(503, "SlowDown", "Please reduce your request rate.") : MockResponse(status: 200, headers: ["Content-Length": "1"])
        }
        let sleeps = Locked<[Duration]>([])
        _ = try await Self.client(mock, sleeps: sleeps).headObject("p/k")
        #expect(mock.requests.count == 3 && sleeps.current == [.seconds(1), .seconds(2)])
        let always = MockTransport { _ in Self.xmlError(503, "SlowDown", "Please reduce your request rate.") }
        let error = await #expect(throws: S3Error.self) { try await Self.client(always).getObject("p/index.json", maxBytes: 1 << 20) }
        #expect(always.requests.count == 4 && error?.attempts == 4 && error?.isRetryable == true)
        #expect(error?.description.contains("S3 GetObject s3://models/p/index.json: HTTP 503 SlowDown") == true)
    }

    @Test("ExpiredToken fetches the credentials again once and repeats the request with the new ones")
    func expiredToken() async throws {
        let generation = Locked(0)
        let fetcher = AWSCredentialFetcher(name: "rotating") {
            let n = generation.withLock { $0 += 1; return $0 }
            return AWSCredentials(accessKeyId: "ASIAGEN\(n)", secretAccessKey: "s\(n)", sessionToken: "t\(n)", origin: "rotating")
        }
        let mock = MockTransport { request in
            request.headers["X-Amz-Security-Token"] == "t1" ? Self.xmlError(400, "ExpiredToken", "The provided token has expired.") : MockResponse(status: 200, headers: ["Content-Length": "0"])
        }
        var settings = S3Settings(try S3Location.parse("s3://models/p/").get(), region: "us-east-1")
        settings.allowsPlainHTTP = true
        let endpoint = try S3Endpoint.resolve(settings, variables: [:], profile: nil)
        let client = S3Client(settings: settings, endpoint: endpoint, transport: mock, provider: AWSCredentialProvider(fetchers: [fetcher]), retry: RetryPolicy())
        _ = try await client.headObject("p/k")
        #expect(mock.requests.map { $0.headers["X-Amz-Security-Token"] ?? "" } == ["t1", "t2"] && generation.current == 2)
    }

    @Test("a refusal names the operation, bucket, key, status, S3 code, the IAM action and where the credentials came from; never the secret")
    func refusalText() async throws {
        let mock = MockTransport { _ in Self.xmlError(403, "AccessDenied", "Access Denied") }
        let key = "p/blobs/sha256/" + String(repeating: "9", count: 64)
        let error = await #expect(throws: S3Error.self) {
            try await Self.client(mock, endpoint: "https://minio.site:9000").putObject(key, body: Data("x".utf8), sha256: String(repeating: "0", count: 64), contentType: "application/octet-stream")
        }
        let text = error?.description ?? ""
        for part in ["S3 PutObject s3://models/\(key)", "HTTP 403 AccessDenied (Access Denied)", "the credentials from environment may not s3:PutObject on arn:aws:s3:::models/\(key)",
                     "request id REQ123"] { #expect(text.contains(part), "\(text)") }
        #expect(!text.contains(Self.secret) && error?.isConfigurationProblem == true && error?.isRetryable == false)
        #expect(mock.requests.count == 1)
    }

    @Test("anonymous requests carry no Authorization; a refusal says they were anonymous and where credentials were looked for")
    func anonymous() async throws {
        let mock = MockTransport { _ in Self.xmlError(403, "AccessDenied", "Access Denied") }
        let error = await #expect(throws: S3Error.self) {
            try await Self.client(mock, variables: ["AWS_EC2_METADATA_DISABLED": "true", "HOME": "/nonexistent"]).getObject("p/index.json", maxBytes: 1024)
        }
        #expect(mock.requests.first?.headers["Authorization"] == nil && mock.requests.first?.headers["X-Amz-Date"] == nil)
        #expect(error?.description.contains("requests were anonymous") == true && error?.description.contains("AWS_PROFILE") == true)
    }

    @Test("Requester Pays: x-amz-request-payer is sent and signed")
    func requesterPays() async throws {
        let mock = MockTransport { _ in MockResponse(status: 200, headers: ["Content-Length": "0"]) }
        _ = try await Self.client(mock, requesterPays: true).headObject("p/k")
        let request = try #require(mock.requests.first)
        #expect(request.headers["x-amz-request-payer"] == "requester" && request.headers["Authorization"]?.contains("x-amz-request-payer") == true)
    }

    @Test("an unreachable store is retried, then named with its endpoint; the SDK's error is kept for the caller to classify")
    func unreachable() async throws {
        let mock = MockTransport { _ in throw APIError.transport("Couldn't connect to server") }
        let error = await #expect(throws: S3Error.self) { try await Self.client(mock, endpoint: "http://127.0.0.1:9").headObject("p/k") }
        #expect(error?.kind == .unreachable && error?.attempts == 4 && mock.requests.count == 4)
        #expect(error?.description.contains("check the endpoint http://127.0.0.1:9 (from the source's endpoint)") == true)
        if case .transport? = error?.apiError {} else { Issue.record("the transport error was not kept: \(String(describing: error?.apiError))") }
    }
}

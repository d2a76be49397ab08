import Foundation
import ManashikiCore
import Manashiki
import ManashikiTestSupport
import Testing
@testable import ManashikiSync

/// A bucket as a source with a closure transport: the index read and the blob transfer through
/// the engine, each request signed for the bucket's host, the region moved once for both, a
/// skewed clock corrected after a blob refusal, and a refusal that stands named by its S3 code.
/// The same source against a real S3-compatible server is in the CLI's `S3SourceTests`.
@Suite("S3 source client: index then blob through the transfer engine, every request signed; region, clock and refusals")
struct S3SourceClientTests {
    static let blob = Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7) })
    static var sha256: String { SHA256Hasher.hash(blob).hex }
    static var index: Data {
        (try? JSONEncoder().encode(BundleIndex(models: [PinnedArtifact(modelId: "m", version: "1.0.0", size: Int64(blob.count), sha256: sha256)]))) ?? Data()
    }

    static func source(_ mock: MockTransport, endpoint: String? = nil, store: URL) throws -> S3SourceClient {
        var settings = S3Settings(try S3Location.parse("s3://models/p q/").get(), endpoint: endpoint.flatMap(URL.init(string:)))
        settings.allowsPlainHTTP = true
        let retry = RetryPolicy(maxAttempts: 3, sleep: { _ in }, random: { 0 })
        return S3SourceClient(settings, label: "bucket s3://models/p q/", transport: mock, environment: SyncEnvironment(variables: S3ClientTests.variables),
                              retry: retry, storeDirectory: store)
    }

    static func download(_ source: S3SourceClient) async throws -> DownloadedModel {
        try await source.download("m", target: ArtifactTarget(version: "1.0.0", sha256: sha256, size: Int64(blob.count)),
                                  run: DownloadOptions(), idleTimeout: 5, progress: { _, _ in })
    }

    @Test("a bucket in another region: the index's 301 moves the client once, the blob goes straight to that region's host, signed (path encoded, scope eu-west-1) and verified")
    func regionThenBlob() async throws {
        let store = ScratchDirectory("s3-source-region")
        let mock = MockTransport { request in
            if request.url.host == "models.s3.us-east-1.amazonaws.com" {
                return S3ClientTests.xmlError(301, "PermanentRedirect", headers: ["x-amz-bucket-region": "eu-west-1"])
            }
            if request.url.path.hasSuffix("index.json") { return MockResponse(status: 200, chunks: [Self.index]) }
            return MockResponse(status: 200, headers: ["Content-Length": "\(Self.blob.count)"], chunks: [Self.blob])
        }
        let source = try Self.source(mock, store: store.url)
        #expect(await source.prepare(offline: false) == [])
        #expect(source.lists(Self.sha256) && source.excludes(Self.sha256) == nil && source.excludes(String(repeating: "0", count: 64)) != nil)
        let model = try await Self.download(source)
        #expect(model.verified && FileManager.default.contents(atPath: model.localURL.path) == Self.blob)
        let blobRequest = try #require(mock.requests.last)
        #expect(blobRequest.url.host == "models.s3.eu-west-1.amazonaws.com")
        #expect(blobRequest.url.absoluteString.hasSuffix("/p%20q/blobs/sha256/\(Self.sha256)"))
        #expect(blobRequest.headers["Authorization"]?.contains("/eu-west-1/s3/aws4_request") == true)
        #expect(blobRequest.headers["X-Amz-Content-SHA256"] == SigV4Signer.emptyPayloadHash)
        #expect(await source.credentialSource() == "environment")
    }

    @Test("a blob request refused as RequestTimeTooSkewed: the probe corrects the clock from the answer's Date once and the transfer goes on")
    func skewedClockOnBlob() async throws {
        let store = ScratchDirectory("s3-source-skew")
        let server = Date().addingTimeInterval(3600)
        let stamp: DateFormatter = {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "GMT")
            f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            return f
        }()
        let signedAt = Locked<[String]>([])
        let mock = MockTransport { request in
            if request.url.path.hasSuffix("index.json") { return MockResponse(status: 200, chunks: [Self.index]) }
            let date = request.headers["X-Amz-Date"] ?? ""
            signedAt.withLock { $0.append(date) }
            // The store's clock is an hour ahead; the index is served regardless (read before the clock drifted).
            if let signed = Self.amzDate(date), abs(signed.timeIntervalSince(server)) > 900 {
                return S3ClientTests.xmlError(403, "RequestTimeTooSkewed", headers: ["Date": stamp.string(from: server)])
            }
            return MockResponse(status: request.headers["Range"] == nil ? 200 : 206,
                                headers: request.headers["Range"] == nil ? ["Content-Length": "\(Self.blob.count)"]
                                    : ["Content-Length": "1", "Content-Range": "bytes 0-0/\(Self.blob.count)"],
                                chunks: [request.headers["Range"] == nil ? Self.blob : Self.blob.prefix(1)])
        }
        let source = try Self.source(mock, endpoint: "http://127.0.0.1:9", store: store.url)
        _ = await source.prepare(offline: false)
        let model = try await Self.download(source)
        #expect(FileManager.default.contents(atPath: model.localURL.path) == Self.blob)
        let dates = signedAt.current
        #expect(dates.count == 4 && dates.last.flatMap(Self.amzDate).map { abs($0.timeIntervalSince(server)) < 900 } == true, "\(dates)")
    }

    /// `20261207T183000Z` as a date.
    static func amzDate(_ text: String) -> Date? {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return f.date(from: text)
    }

    @Test("a blob request refused with AccessDenied: an S3Error naming GetObject, the key, 403, the code and the IAM action, a configuration problem")
    func refusalNamed() async throws {
        let store = ScratchDirectory("s3-source-denied")
        let mock = MockTransport { request in
            if request.url.path.hasSuffix("index.json") { return MockResponse(status: 200, chunks: [Self.index]) }
            return S3ClientTests.xmlError(403, "AccessDenied", "Access Denied")
        }
        let source = try Self.source(mock, endpoint: "http://127.0.0.1:9", store: store.url)
        _ = await source.prepare(offline: false)
        let error = try await #require(throws: S3Error.self) { try await Self.download(source) }
        #expect(error.operation == "GetObject" && error.key == "p q/blobs/sha256/\(Self.sha256)" && error.status == 403 && error.code == "AccessDenied")
        #expect(error.isConfigurationProblem && error.description.contains("may not s3:GetObject on arn:aws:s3:::models/p q/blobs/sha256/"), "\(error)")
        #expect(!error.description.contains(S3ClientTests.secret))
    }
}

import Foundation
import ManashikiCore
import Manashiki
import Testing
@testable import ManashikiSync

@Suite("S3 locations, endpoints and addressing")
struct S3LocationTests {
    @Test("s3:// URLs: the prefix is a folder, any UTF-8 allowed, keys in the bundle layout", arguments: [
        ("s3://models", "models", ""),
        ("s3://models/", "models", ""),
        ("s3://models/site-a", "models", "site-a/"),
        ("S3://models/site-a/", "models", "site-a/"),
        ("s3://models/a b/ü+$/", "models", "a b/ü+$/"),
        ("s3://my.dotted.bucket/x//y", "my.dotted.bucket", "x//y/"),
    ])
    func parses(text: String, bucket: String, prefix: String) throws {
        let location = try S3Location.parse(text).get()
        #expect(location.bucket == bucket && location.prefix == prefix)
        #expect(location.indexKey == prefix + "index.json")
        #expect(location.blobKey(String(repeating: "a", count: 64)) == prefix + "blobs/sha256/" + String(repeating: "a", count: 64))
    }

    @Test("refused, saying why", arguments: [
        ("gs://models/x", "not an s3:// URL"), ("s3://", "no bucket name"), ("s3://ab/x", "3 to 63"), ("s3://Bad!Name/x", "only lowercase"),
        ("s3://-models/x", "starts and ends"), ("s3://models/x?versionId=1", "query"), ("s3://models/a\u{7}b", "control character"),
    ])
    func refuses(text: String, fragment: String) {
        guard case .failure(let problem) = S3Location.parse(text) else { Issue.record("\(text) was accepted"); return }
        #expect(problem.description.contains(fragment), "\(problem)")
    }

    static func settings(_ text: String = "s3://models/p/", endpoint: String? = nil, region: String? = nil, addressing: S3Addressing = .auto) -> S3Settings {
        S3Settings(try! S3Location.parse(text).get(), endpoint: endpoint.flatMap(URL.init(string:)), region: region, addressing: addressing)
    }

    @Test("the endpoint: the source's, else AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's endpoint_url, else AWS for the region")
    func endpointPrecedence() throws {
        let profile = AWSProfile(name: "p", values: ["endpoint_url": "https://profile.example", "region": "ap-south-1"], files: ["/c"])
        let all = ["AWS_ENDPOINT_URL_S3": "https://s3var.example:9000", "AWS_ENDPOINT_URL": "https://any.example", "AWS_REGION": "eu-west-1"]
        #expect(try S3Endpoint.resolve(Self.settings(endpoint: "https://given.example"), variables: all, profile: profile).host == "given.example")
        #expect(try S3Endpoint.resolve(Self.settings(), variables: all, profile: profile).shown == "https://s3var.example:9000")
        #expect(try S3Endpoint.resolve(Self.settings(), variables: ["AWS_ENDPOINT_URL": "https://any.example"], profile: profile).host == "any.example")
        let fromProfile = try S3Endpoint.resolve(Self.settings(), variables: [:], profile: profile)
        #expect(fromProfile.host == "profile.example" && fromProfile.region == "ap-south-1")
        let aws = try S3Endpoint.resolve(Self.settings(), variables: ["AWS_DEFAULT_REGION": "eu-central-1"], profile: nil)
        #expect(aws.isAWS && aws.host == "s3.eu-central-1.amazonaws.com" && !aws.pathStyle && aws.regionGiven)
        let fallback = try S3Endpoint.resolve(Self.settings(), variables: [:], profile: nil)
        #expect(fallback.region == "us-east-1" && !fallback.regionGiven)
        #expect(try S3Endpoint.resolve(Self.settings(region: "us-west-2"), variables: all, profile: nil).region == "us-west-2")
    }

    @Test("addressing: path-style whenever an endpoint is set, virtual-hosted on AWS unless the name cannot be a host; keys encoded byte by byte")
    func addressing() throws {
        let custom = try S3Endpoint.resolve(Self.settings("s3://models/a b/", endpoint: "https://minio.site:9000/gw/"), variables: [:], profile: nil)
        #expect(custom.pathStyle)
        #expect(custom.url(bucket: "models", key: "a b/ü+$.bin").absoluteString == "https://minio.site:9000/gw/models/a%20b/%C3%BC%2B%24.bin")
        let virtualCustom = try S3Endpoint.resolve(Self.settings(endpoint: "https://r2.example", addressing: .virtual), variables: [:], profile: nil)
        #expect(virtualCustom.url(bucket: "models", key: "k").absoluteString == "https://models.r2.example/k")
        let aws = try S3Endpoint.resolve(Self.settings(region: "eu-west-1"), variables: [:], profile: nil)
        #expect(aws.url(bucket: "models", key: "p/index.json").absoluteString == "https://models.s3.eu-west-1.amazonaws.com/p/index.json")
        #expect(aws.url(bucket: "models", key: nil, query: [("uploads", nil), ("prefix", "p/blobs/")]).absoluteString
                == "https://models.s3.eu-west-1.amazonaws.com/?uploads&prefix=p%2Fblobs%2F")
        let dotted = try S3Endpoint.resolve(Self.settings("s3://my.bucket/p/"), variables: [:], profile: nil)
        #expect(dotted.pathStyle && dotted.url(bucket: "my.bucket", key: "k").absoluteString == "https://s3.us-east-1.amazonaws.com/my.bucket/k")
        #expect(aws.inRegion("cn-north-1").host == "s3.cn-north-1.amazonaws.com.cn")
        #expect(custom.inRegion("eu-west-3").host == "minio.site")
    }

    @Test("an endpoint of plain http to another host needs allowHTTP; this machine is fine; a URL with credentials is refused without showing them")
    func endpointRules() throws {
        #expect(throws: S3Error.self) { try S3Endpoint.resolve(Self.settings(endpoint: "http://minio.lan:9000"), variables: [:], profile: nil) }
        var allowed = Self.settings(endpoint: "http://minio.lan:9000")
        allowed.allowsPlainHTTP = true
        #expect(try S3Endpoint.resolve(allowed, variables: [:], profile: nil).scheme == "http")
        #expect(try S3Endpoint.resolve(Self.settings(endpoint: "http://127.0.0.1:8333"), variables: [:], profile: nil).port == 8333)
        let error = #expect(throws: S3Error.self) { try S3Endpoint.resolve(Self.settings(), variables: ["AWS_ENDPOINT_URL_S3": "https://user:hunter2@x.example"], profile: nil) }
        #expect(error?.description.contains("hunter2") == false)
    }
}

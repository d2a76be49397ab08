import Foundation
import ManashikiCore
import Testing
@testable import ManashikiSync

@Suite("s3 sources in the manifest and on the command line")
struct S3SourceParserTests {
    static func parse(_ json: String) -> (ArtifactSource?, [ManifestProblem]) {
        let value = try! JSONValue.parse(Data(json.utf8))
        switch ArtifactSourceParser.entry(value, at: "sources[0]") {
        case .success(let source): return (source, [])
        case .failure(let found): return (nil, found.problems)
        }
    }

    @Test("every key: endpoint, region, addressing, credentials, requesterPays, allowHTTP, private")
    func everything() throws {
        let (source, problems) = Self.parse(#"""
        {"s3": "s3://models/site-a", "endpoint": "http://minio.lan:9000", "allowHTTP": true, "region": "eu-west-1", "addressing": "path",
         "credentials": {"env": {"accessKeyId": "MODELS_ID", "secretAccessKey": "MODELS_SECRET"}}, "requesterPays": true, "private": true}
        """#)
        #expect(problems.isEmpty, "\(problems)")
        guard case .s3(let settings)? = source?.kind else { Issue.record("not an s3 source"); return }
        #expect(settings.location == S3Location(bucket: "models", prefix: "site-a/") && settings.endpoint?.absoluteString == "http://minio.lan:9000")
        #expect(settings.region == "eu-west-1" && settings.addressing == .path && settings.requesterPays && settings.allowsPlainHTTP)
        #expect(settings.credentials == .environment(accessKeyId: "MODELS_ID", secretAccessKey: "MODELS_SECRET", sessionToken: nil))
        #expect(source?.servesPrivate == true && source?.servesOffline == false && source?.description == "bucket s3://models/site-a/ at http://minio.lan:9000")
        let anonymous = Self.parse(#"{"s3": "s3://m0d/", "credentials": "anonymous"}"#).0
        #expect(anonymous?.kind == .s3(S3Settings(S3Location(bucket: "m0d", prefix: ""), credentials: .anonymous)))
        #expect(Self.parse(#"{"s3": "s3://m0d/", "credentials": {"profile": "reader"}}"#).1.isEmpty)
    }

    @Test("mistakes are named by their JSON path with the fix", arguments: [
        (#"{"s3": "s3://models/", "credentials": {"accessKeyId": "AKIA", "secretAccessKey": "x"}}"#, "sources[0].credentials", "never holds secrets"),
        (#"{"s3": "s3://models/", "endpoint": "http://minio.lan:9000"}"#, "sources[0].endpoint", "allowHTTP"),
        (#"{"s3": "s3://models/", "endpoint": "https://key:secret@minio.lan"}"#, "sources[0].endpoint", "credentials"),
        (#"{"s3": "s3://models/", "addressing": "dns"}"#, "sources[0].addressing", "auto"),
        (#"{"s3": "s3://models/", "region": "eu west"}"#, "sources[0].region", "region name"),
        (#"{"s3": "gs://models/"}"#, "sources[0].s3", "not an s3:// URL"),
        (#"{"s3": "s3://models/", "tag": "v1"}"#, "sources[0].tag", "oci sources only"),
        (#"{"mirror": "https://m.example/b", "endpoint": "https://x.example"}"#, "sources[0].endpoint", "s3 sources only"),
        (#"{"s3": "s3://models/", "credentials": {"env": {"accessKeyId": "ID"}}}"#, "sources[0].credentials.env", "secretAccessKey"),
        (#"{"s3": "s3://models/", "requesterpays": true}"#, "sources[0].requesterpays", "requesterPays"),
    ])
    func mistakes(json: String, path: String, fragment: String) {
        let (source, problems) = Self.parse(json)
        #expect(source == nil)
        #expect(problems.contains { $0.path == path && "\($0.message) \($0.hint ?? "")".contains(fragment) }, "\(problems)")
        #expect(!problems.contains { "\($0)".contains("secret@") || "\($0.message)".contains(":secret") })
    }

    @Test("--from s3://BUCKET/PREFIX/ is a bucket source with everything from the environment")
    func commandLine() throws {
        let source = try ArtifactSource(commandLine: "s3://models/site-a/", relativeTo: URL(fileURLWithPath: "/"))
        #expect(source.kind == .s3(S3Settings(S3Location(bucket: "models", prefix: "site-a/"))))
        #expect(throws: ArtifactFileError.self) { try ArtifactSource(commandLine: "s3://x/", relativeTo: URL(fileURLWithPath: "/")) }
    }
}

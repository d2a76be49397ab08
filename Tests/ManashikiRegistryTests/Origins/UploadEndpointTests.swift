#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Testing
@testable import ManashikiRegistry
import ManashikiCore

@Suite("Uploads")
struct UploadEndpointTests {
    static func announce(_ registry: DevelopmentRegistry, key: String = Fixture.live, modelId: String, version: String,
                         bytes: Data, sha: String? = nil) async throws -> FetchedResponse {
        let body: [String: Any] = ["modelId": modelId, "version": version, "size": bytes.count,
                                   "sha256": sha ?? SHA256Hasher.hash(bytes).hex, "visibility": "public", "format": ["type": "gguf"]]
        return try await HTTPClient.fetch(registry.api("/api/uploads/model"), method: "POST", key: key, body: JSON.data(body))
    }

    @Test("POST then PUT over URLSession publishes the new version in the catalog and on storage")
    func uploadOverURLSession() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let bytes = GeneratedBytes.data(size: 10_000, seed: 99)
        let announced = try await Self.announce(registry, modelId: Fixture.tiny, version: "1.1.0", bytes: bytes)
        #expect(announced.status == 201)
        let body = try #require(JSON.object(announced.body))
        #expect((body["uploadId"] as? String)?.hasPrefix("up_") == true)
        #expect(body["method"] as? String == "PUT")
        #expect(body["expiresIn"] as? Int == 900)
        let uploadUrl = try #require(JSON.url(body["uploadUrl"]))
        #expect(uploadUrl.port == registry.storagePort)

        let put = try await HTTPClient.fetch(uploadUrl, method: "PUT", body: bytes)
        #expect(put.status == 200)
        #expect(JSON.object(put.body)?["sha256"] as? String == SHA256Hasher.hash(bytes).hex)

        let catalog = try await HTTPClient.fetch(registry.api("/api/models"), key: Fixture.publishable)
        let tiny = (JSON.object(catalog.body)?["models"] as? [[String: Any]])?.first { $0["modelId"] as? String == "tiny" }
        #expect(tiny?["version"] as? String == "1.1.0")
        #expect(tiny?["size"] as? Int == 10_000)
        let record = try await HTTPClient.fetch(registry.api("/api/models/tiny"), key: Fixture.publishable)
        #expect(((JSON.object(record.body)?["lineage"] as? [String: Any])?["parentVersion"] as? String) == "1.0.0")
        let download = try await HTTPClient.fetch(registry.api("/api/download/tiny"), key: Fixture.publishable)
        let url = try #require(JSON.url(JSON.object(download.body)?["downloadUrl"]))
        #expect(try await HTTPClient.fetch(url).body == bytes)
        #expect(registry.artifactBytes(modelId: "tiny") == bytes)
        #expect(registry.artifactBytes(modelId: "tiny", version: "1.0.0") == GeneratedBytes.data(size: 64 << 10, seed: 7))
    }

    @Test("PUT with curl -T: a wrong size or digest is 400, the right bytes 200, and the upload sends no API key", .requires(.curl))
    func uploadOverCurl() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let bytes = GeneratedBytes.data(size: 3 << 20, seed: 5)
        let scratch = ScratchDirectory("upload")
        let file = scratch.file("upload.bin")
        try bytes.write(to: file)
        let wrong = Data(repeating: 1, count: bytes.count)
        let wrongFile = scratch.file("wrong.bin")
        try wrong.write(to: wrongFile)

        let announced = try await Self.announce(registry, key: Fixture.service, modelId: "brand-new", version: "0.1.0", bytes: bytes)
        let uploadUrl = try #require(JSON.object(announced.body)?["uploadUrl"] as? String)
        let short = try Curl.run(["-X", "PUT", "--data-binary", "abc", uploadUrl])
        #expect(short.status == 400)
        #expect(JSON.errorCode(short.body) == "bad_request")
        let corrupt = try Curl.run(["-T", wrongFile.path, uploadUrl])
        #expect(corrupt.status == 400)
        let ok = try Curl.run(["-T", file.path, uploadUrl])
        #expect(ok.status == 200)
        #expect(registry.sha256(modelId: "brand-new") == SHA256Hasher.hash(bytes).hex)
        let puts = registry.requestLog().filter { $0.method == "PUT" }
        #expect(puts.count == 3)
        #expect(puts.allSatisfy { $0.origin == .storage && $0.header("X-API-Key") == nil })
        let again = try Curl.run(["-T", file.path, uploadUrl])
        #expect(again.status == 400)
    }

    @Test("uploads need a server key and a valid body")
    func uploadRejections() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let bytes = Data("abc".utf8)
        let client = try await Self.announce(registry, key: Fixture.publishable, modelId: "x", version: "1", bytes: bytes)
        #expect(client.status == 403)
        #expect(JSON.errorCode(client.body) == "forbidden_scope")
        let badSha = try await Self.announce(registry, modelId: "x", version: "1", bytes: bytes, sha: "ABC")
        #expect(badSha.status == 400)
        let badId = try await Self.announce(registry, modelId: "Bad/Id", version: "1", bytes: bytes)
        #expect(badId.status == 400)
        let existing = try await Self.announce(registry, modelId: Fixture.tiny, version: "1.0.0", bytes: bytes)
        #expect(existing.status == 400)
        #expect(JSON.errorCode(existing.body) == "bad_request")
    }

    @Test("the demo catalog's pending version uploads through curl and becomes current", .requires(.curl))
    func pendingVersionFromExamples() async throws {
        let registry = try DevelopmentRegistry.start(catalogDirectory: Fixture.examplesDirectory)
        defer { registry.stop() }
        let pending = try #require(registry.pendingVersions.first)
        guard case .generated(let size, let seed) = pending.artifact else {
            Issue.record("the demo's pending version should be generated")
            return
        }
        let scratch = ScratchDirectory("pending")
        let file = scratch.file("pending.bin")
        let digest = try GeneratedBytes.write(size: size, seed: seed, to: file)
        let body = #"{"modelId":"\#(pending.modelId)","version":"\#(pending.version)","size":\#(size),"sha256":"\#(digest)"}"#
        let announced = try Curl.run(["-X", "POST", "-H", "X-API-Key: mk_live_demo_0123456789abcdefghij",
                                      "-H", "Content-Type: application/json", "--data", body,
                                      registry.api("/api/uploads/model").absoluteString])
        #expect(announced.status == 201)
        let uploadUrl = try #require(JSON.object(announced.body)?["uploadUrl"] as? String)
        let put = try Curl.run(["-T", file.path, uploadUrl])
        #expect(put.status == 200)
        #expect(registry.version(modelId: pending.modelId) == pending.version)
        #expect(registry.sha256(modelId: pending.modelId) == digest)
    }

    @Test("publish(modelId:version:artifact:) has the effect of an upload")
    func publishAPI() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        try registry.publish(modelId: Fixture.tiny, version: "9.0.0", artifact: .data(Data("nine".utf8)))
        let record = try await HTTPClient.fetch(registry.api("/api/models/tiny"), key: Fixture.publishable)
        #expect(JSON.object(record.body)?["version"] as? String == "9.0.0")
        #expect(JSON.object(record.body)?["size"] as? Int == 4)
        #expect(registry.artifactBytes(modelId: Fixture.tiny) == Data("nine".utf8))
    }
}
#endif

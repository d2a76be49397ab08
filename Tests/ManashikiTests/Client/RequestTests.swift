import Foundation
import Testing
@testable import Manashiki
import ManashikiTestSupport

@Suite("Requests: headers, paths, scopes and redirects")
struct RequestTests {
    static let catalog = #"{"models": [{"modelId": "tiny", "version": "1.0.0", "size": 3, "sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}]}"#

    @Test("every API request carries X-API-Key, Accept and User-Agent, and no Authorization")
    func headers() async throws {
        let (client, mock) = try makeClient { _ in .json(200, Self.catalog) }
        let entries = try await client.listModels()
        #expect(entries.map(\.modelId) == ["tiny"])
        let request = try #require(mock.requests.first)
        #expect(request.method == "GET")
        #expect(request.url.absoluteString == "https://models.example.test/api/models")
        #expect(request.headers["X-API-Key"] == TestKeys.publishable)
        #expect(request.headers["Accept"] == "application/json")
        #expect(request.headers["User-Agent"]?.hasPrefix("manashiki-swift/") == true)
        #expect(request.headers["Authorization"] == nil)
    }

    @Test("a base URL with a path prefix keeps it")
    func basePathPrefix() async throws {
        let mock = MockTransport { _ in .json(200, Self.catalog) }
        let client = try ManashikiClient(apiKey: TestKeys.publishable, baseURL: URL(string: "https://gw.example/registry/")!, transport: mock)
        _ = try await client.listModels()
        #expect(mock.requests.first?.url.absoluteString == "https://gw.example/registry/api/models")
    }

    @Test("getModel puts the id in one path segment")
    func getModelPath() async throws {
        let (client, mock) = try makeClient { _ in .json(200, WireDecodingTests.fullRecord) }
        _ = try await client.getModel("whisper-medical-ja-fp16")
        #expect(mock.requests.first?.url.path == "/api/models/whisper-medical-ja-fp16")
    }

    @Test("nothing is sent for an invalid model id", arguments: ["../etc/passwd", "a/b", "A", "", "a?b=c", "a#b"])
    func invalidIdSendsNothing(id: String) async throws {
        let (client, mock) = try makeClient { _ in .json(200, "{}") }
        await #expect(throws: APIError.invalidModelId(id)) { _ = try await client.getModel(id) }
        await #expect(throws: APIError.invalidModelId(id)) { _ = try await client.downloadModel(id) }
        #expect(mock.requests.isEmpty)
    }

    @Test("server-only methods with a publishable key throw forbiddenScope without sending")
    func forbiddenScopeLocally() async throws {
        let (client, mock) = try makeClient(TestKeys.publishable) { _ in .json(200, "{}") }
        await #expect(throws: APIError.forbiddenScope) { _ = try await client.createSession(principalId: "p", ttlSec: 3600) }
        await #expect(throws: APIError.forbiddenScope) {
            _ = try await client.createModelUpload(ModelUploadRequest(modelId: "m", version: "1", size: 1, sha256: String(repeating: "a", count: 64)))
        }
        #expect(mock.requests.isEmpty)
    }

    @Test("createSession sends the body and decodes the answer; an mk_live_ key gets the server's 403")
    func createSession() async throws {
        let (legacy, mock) = try makeClient(TestKeys.legacy) { request in
            let body = try JSONSerialization.jsonObject(with: request.body ?? Data()) as? [String: Any]
            #expect(body?["principalId"] as? String == "doctor-abc123")
            #expect(body?["ttlSec"] as? Int == 600)
            #expect(request.headers["Content-Type"] == "application/json")
            return .json(200, #"{"token": "mks_t", "principalId": "doctor-abc123", "expiresAt": "2026-11-29T16:00:00Z"}"#)
        }
        let session = try await legacy.createSession(principalId: "doctor-abc123", ttlSec: 600)
        #expect(session.token == "mks_t")
        #expect(mock.requests.first?.method == "POST")
        #expect(mock.requests.first?.url.path == "/api/session")

        let (live, liveMock) = try makeClient(TestKeys.live) { _ in .error(403, code: "forbidden_scope") }
        await #expect(throws: APIError.forbiddenScope) { _ = try await live.createSession(principalId: "p") }
        #expect(liveMock.requests.count == 1)
        // The text must not blame a publishable key when an mk_live_ key was refused (issue 26, 7):
        // it says what each kind may do, and that sessions need sk_live_ (mk_live_ is refused).
        let text = APIError.forbiddenScope.localizedDescription
        #expect(text.contains("mk_live_ and mk_svc_ keys are refused") && text.contains("needs a legacy sk_live_ key"), "\(text)")
        #expect(!text.contains("A publishable mk_pub_ key may only list and download. Creating"), "\(text)")
    }

    @Test("ttlSec outside 60…86400 is refused locally", arguments: [0, 59, 86_401])
    func ttlRange(ttl: Int) async throws {
        let (client, mock) = try makeClient(TestKeys.legacy) { _ in .json(200, "{}") }
        await #expect(throws: APIError.self) { _ = try await client.createSession(principalId: "p", ttlSec: ttl) }
        #expect(mock.requests.isEmpty)
    }

    @Test("createModelUpload posts the request and checks the upload URL policy")
    func upload() async throws {
        let sha = String(repeating: "b", count: 64)
        let (client, mock) = try makeClient(TestKeys.service) { _ in
            .json(201, #"{"uploadId": "up_1", "uploadUrl": "https://up.example/x?sig=1", "method": "PUT", "expiresIn": 900}"#)
        }
        let upload = try await client.createModelUpload(ModelUploadRequest(modelId: "m", version: "2.0.0", size: 5, sha256: sha))
        #expect(upload.uploadId == "up_1")
        #expect(mock.requests.first?.url.path == "/api/uploads/model")

        let (bad, _) = try makeClient(TestKeys.service) { _ in
            .json(201, #"{"uploadId": "up_1", "uploadUrl": "http://evil.example/x", "method": "PUT", "expiresIn": 900}"#)
        }
        await #expect(throws: APIError.self) { _ = try await bad.createModelUpload(ModelUploadRequest(modelId: "m", version: "2", size: 5, sha256: sha)) }
    }

    @Test("a same-origin redirect is followed with the key; a cross-origin one is refused without sending the key there")
    func redirects() async throws {
        let (client, mock) = try makeClient { request in
            if request.url.path == "/api/models" { return MockResponse(status: 307, headers: ["Location": "/v2/api/models"]) }
            return .json(200, Self.catalog)
        }
        _ = try await client.listModels()
        #expect(mock.requests.map(\.url.path) == ["/api/models", "/v2/api/models"])
        #expect(mock.requests.allSatisfy { $0.headers["X-API-Key"] == TestKeys.publishable })

        let (evil, evilMock) = try makeClient { request in
            if request.url.host == "models.example.test" { return MockResponse(status: 302, headers: ["Location": "https://evil.example/steal"]) }
            return .json(200, Self.catalog)
        }
        await #expect(throws: APIError.self) { _ = try await evil.listModels() }
        #expect(evilMock.requests.allSatisfy { $0.url.host == "models.example.test" })
    }

    @Test("a redirect loop stops after a bounded number of hops")
    func redirectLoop() async throws {
        let (client, mock) = try makeClient { _ in MockResponse(status: 302, headers: ["Location": "/api/models"]) }
        await #expect(throws: APIError.self) { _ = try await client.listModels() }
        #expect(mock.requests.count == ManashikiClient.maxRedirects + 1)
    }

    @Test("a plain-http base URL is refused unless it is loopback")
    func baseURLPolicy() throws {
        let mock = MockTransport { _ in .json(200, "{}") }
        #expect(throws: APIError.self) { _ = try ManashikiClient(apiKey: TestKeys.publishable, baseURL: URL(string: "http://models.example")!, transport: mock) }
        _ = try ManashikiClient(apiKey: TestKeys.publishable, baseURL: URL(string: "http://127.0.0.1:8080")!, transport: mock)
        _ = try ManashikiClient(apiKey: TestKeys.publishable, baseURL: URL(string: "http://localhost:8080")!, transport: mock)
    }

    @Test("invalid catalog entries and mismatched records are reported with their place")
    func invalidAnswers() async throws {
        let (bad, _) = try makeClient { _ in .json(200, #"{"models": [{"modelId": "../x", "version": "1", "size": 1, "sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}]}"#) }
        await #expect(throws: APIError.invalidResponse("GET /api/models: models[0] has an invalid modelId \"../x\"")) { _ = try await bad.listModels() }
        let (wrongType, _) = try makeClient { _ in .json(200, #"{"models": [{"modelId": "a", "version": "1", "size": "big", "sha256": "x"}]}"#) }
        await #expect(throws: APIError.invalidResponse("GET /api/models: models[0] (a) is not a valid entry: size is not an integer")) { _ = try await wrongType.listModels() }
        let (escape, _) = try makeClient { _ in .json(200, #"{"models": [{"modelId": "a", "version": "1.0\u001b[2J", "size": 1, "sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}]}"#) }
        await #expect(throws: APIError.self) { _ = try await escape.listModels() }
        let (html, _) = try makeClient { _ in MockResponse(status: 200, chunks: [Data("<html>captive portal</html>".utf8)]) }
        let notJSON = await #expect(throws: APIError.self) { _ = try await html.listModels() }
        guard case .invalidResponse(let text)? = notJSON else { Issue.record("\(String(describing: notJSON))"); return }
        #expect(text.hasPrefix(#"GET /api/models: not valid JSON (unexpected "<" where a value was expected"#), "\(text)")
        let (other, _) = try makeClient { _ in .json(200, WireDecodingTests.fullRecord) }
        await #expect(throws: APIError.self) { _ = try await other.getModel("another-model") }
    }
}

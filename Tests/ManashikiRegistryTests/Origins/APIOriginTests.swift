#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
@testable import ManashikiRegistry

@Suite("API origin")
struct APIOriginTests {
    @Test("GET /api/models lists id, version, size and lowercase sha256 over URLSession")
    func catalogOverURLSession() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let response = try await HTTPClient.fetch(registry.api("/api/models"), key: Fixture.publishable)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "application/json")
        let models = try #require(JSON.object(response.body)?["models"] as? [[String: Any]])
        let ids = models.compactMap { $0["modelId"] as? String }
        #expect(ids == [Fixture.tiny, Fixture.secret, Fixture.old])
        let tiny = try #require(models.first)
        #expect(tiny["version"] as? String == "1.0.0")
        #expect(tiny["size"] as? Int == 64 << 10)
        #expect(JSON.isLowerHex64(tiny["sha256"]))
        #expect(tiny["sha256"] as? String == registry.sha256(modelId: Fixture.tiny))
        #expect(Set(tiny.keys) == ["modelId", "version", "size", "sha256"])
    }

    @Test("GET /api/models over curl answers the same catalog with Content-Length and keep-alive", .requires(.curl))
    func catalogOverCurl() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let result = try Curl.run(["-H", "X-API-Key: \(Fixture.publishable)", registry.api("/api/models").absoluteString])
        #expect(result.exitCode == 0)
        #expect(result.status == 200)
        #expect(result.header("Content-Length") == String(result.body.count))
        #expect(result.header("Connection") == "keep-alive")
        let models = try #require(JSON.object(result.body)?["models"] as? [[String: Any]])
        #expect(models.count == 3)
    }

    @Test("a missing or unknown API key is answered 401 invalid_api_key", .requires(.curl))
    func invalidKeys() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let missing = try await HTTPClient.fetch(registry.api("/api/models"))
        #expect(missing.status == 401)
        #expect(JSON.errorCode(missing.body) == "invalid_api_key")
        let unknown = try await HTTPClient.fetch(registry.api("/api/models/tiny"), key: "mk_pub_acme_zzzzzzzzzzzzzzzzzzzzzzzz")
        #expect(unknown.status == 401)
        #expect(JSON.errorCode(unknown.body) == "invalid_api_key")
        #expect(JSON.errorMessage(unknown.body)?.isEmpty == false)
        let download = try Curl.run(["-H", "X-API-Key: sk_live_unknownunknownunknown", registry.api("/api/download/tiny").absoluteString])
        #expect(download.status == 401)
        #expect(JSON.errorCode(download.body) == "invalid_api_key")
    }

    @Test("GET /api/models/{id} answers the full wire record")
    func fullRecord() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let response = try await HTTPClient.fetch(registry.api("/api/models/tiny"), key: Fixture.publishable)
        #expect(response.status == 200)
        let record = try #require(JSON.object(response.body))
        #expect(record["modelId"] as? String == "tiny")
        #expect(record["size"] as? Int == 64 << 10)
        #expect(record["sha256"] as? String == registry.sha256(modelId: "tiny"))
        #expect(record["visibility"] as? String == "public")
        let compatibility = try #require(record["compatibility"] as? [String: Any])
        #expect(compatibility["platforms"] as? [String] == ["linux", "macos"])
        #expect(compatibility["min_os"] as? String == "14.2.1")
        let lifecycle = try #require(record["lifecycle"] as? [String: Any])
        #expect(lifecycle["status"] as? String == "production")
        #expect(lifecycle["sunsetAt"] is NSNull)
        #expect((record["card"] as? [String: Any])?["title"] as? String == "Tiny")
        #expect((record["format"] as? [String: Any])?["type"] as? String == "gguf")
        #expect(record["lineage"] == nil)
    }

    @Test("an unknown model is 404 not_found on the record and download endpoints")
    func unknownModel() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        for path in ["/api/models/nope", "/api/download/nope"] {
            let response = try await HTTPClient.fetch(registry.api(path), key: Fixture.publishable)
            #expect(response.status == 404)
            #expect(JSON.errorCode(response.body) == "not_found")
        }
    }

    @Test("private models of another organisation are hidden; org-less legacy keys see them")
    func organisationVisibility() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let globex = try await HTTPClient.fetch(registry.api("/api/models"), key: Fixture.globex)
        let globexIds = (JSON.object(globex.body)?["models"] as? [[String: Any]])?.compactMap { $0["modelId"] as? String }
        #expect(globexIds == [Fixture.tiny, Fixture.old, Fixture.globexPrivate])
        let legacy = try await HTTPClient.fetch(registry.api("/api/models"), key: Fixture.legacy)
        #expect((JSON.object(legacy.body)?["models"] as? [Any])?.count == 4)
        let hidden = try await HTTPClient.fetch(registry.api("/api/models/globex-private"), key: Fixture.publishable)
        #expect(hidden.status == 404)
    }

    @Test("GET /api/download/{id} answers a signed loopback URL serving the exact bytes")
    func downloadPublic() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let response = try await HTTPClient.fetch(registry.api("/api/download/tiny"), key: Fixture.publishable)
        #expect(response.status == 200)
        let body = try #require(JSON.object(response.body))
        #expect(body["sha256"] as? String == registry.sha256(modelId: "tiny"))
        #expect(body["size"] as? Int == 64 << 10)
        #expect(body["expiresIn"] as? Int == 300)
        #expect(body["version"] as? String == "1.0.0")
        let url = try #require(JSON.url(body["downloadUrl"]))
        #expect(url.scheme == "http")
        #expect(url.host == "127.0.0.1")
        #expect(url.port == registry.storagePort)
        #expect(url.query?.contains("sig=") == true)
        #expect(url.query?.contains("exp=") == true)
        let blob = try await HTTPClient.fetch(url)
        #expect(blob.status == 200)
        #expect(blob.body == registry.artifactBytes(modelId: "tiny"))
        #expect(blob.header("Content-Length") == String(64 << 10))
    }

    @Test("a private model needs a session: session_required, invalid_session, then 200")
    func privateDownload() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let url = registry.api("/api/download/\(Fixture.secret)")
        let none = try await HTTPClient.fetch(url, key: Fixture.publishable)
        #expect(none.status == 401)
        #expect(JSON.errorCode(none.body) == "session_required")
        let bogus = try await HTTPClient.fetch(url, key: Fixture.publishable, headers: ["Authorization": "Bearer mks_nope"])
        #expect(bogus.status == 401)
        #expect(JSON.errorCode(bogus.body) == "invalid_session")
        let malformed = try await HTTPClient.fetch(url, key: Fixture.publishable, headers: ["Authorization": "Basic abc"])
        #expect(JSON.errorCode(malformed.body) == "invalid_session")

        let session = try await HTTPClient.fetch(registry.api("/api/session"), method: "POST", key: Fixture.legacy,
                                                 body: JSON.data(["principalId": "doctor-abc123", "ttlSec": 3600]))
        let token = try #require(JSON.object(session.body)?["token"] as? String)
        let ok = try await HTTPClient.fetch(url, key: Fixture.publishable, headers: ["Authorization": "Bearer \(token)"])
        #expect(ok.status == 200)
        let downloadUrl = try #require(JSON.url(JSON.object(ok.body)?["downloadUrl"]))
        let blob = try await HTTPClient.fetch(downloadUrl)
        #expect(blob.body == registry.artifactBytes(modelId: Fixture.secret))

        registry.expireSessions()
        let expired = try await HTTPClient.fetch(url, key: Fixture.publishable, headers: ["Authorization": "Bearer \(token)"])
        #expect(expired.status == 401)
        #expect(JSON.errorCode(expired.body) == "invalid_session")
    }

    @Test("a sunset model's download is 410 model_sunset while its record stays readable")
    func sunset() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let download = try await HTTPClient.fetch(registry.api("/api/download/\(Fixture.old)"), key: Fixture.publishable)
        #expect(download.status == 410)
        #expect(JSON.errorCode(download.body) == "model_sunset")
        let record = try await HTTPClient.fetch(registry.api("/api/models/\(Fixture.old)"), key: Fixture.publishable)
        #expect(record.status == 200)
        #expect(((JSON.object(record.body)?["lifecycle"] as? [String: Any])?["sunsetAt"] as? String) == "2026-01-01T00:00:00Z")
    }

    @Test("unknown paths are 404 and wrong methods 405, both with the error body", .requires(.curl))
    func routing() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let unknown = try Curl.run(["-H", "X-API-Key: \(Fixture.publishable)", registry.api("/api/nothing").absoluteString])
        #expect(unknown.status == 404)
        #expect(JSON.errorCode(unknown.body) == "not_found")
        let wrong = try Curl.run(["-X", "DELETE", "-H", "X-API-Key: \(Fixture.publishable)", registry.api("/api/models").absoluteString])
        #expect(wrong.status == 405)
        #expect(wrong.header("Allow") == "GET, HEAD")
        #expect(JSON.errorCode(wrong.body) != nil)
    }
}
#endif

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
@testable import ManashikiRegistry
import ManashikiCore

@Suite("Storage origin")
struct StorageOriginTests {
    static func downloadURL(_ registry: DevelopmentRegistry, _ modelId: String = Fixture.tiny) async throws -> String {
        let response = try await HTTPClient.fetch(registry.api("/api/download/\(modelId)"), key: Fixture.publishable)
        return try #require(JSON.object(response.body)?["downloadUrl"] as? String)
    }

    @Test("Range: bytes=N-, N-M and -S answer 206 with Content-Range; a start beyond the end is 416", .requires(.curl))
    func ranges() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let url = try await Self.downloadURL(registry)
        let all = try #require(registry.artifactBytes(modelId: Fixture.tiny))
        let open = try Curl.run(["-H", "Range: bytes=1000-", url])
        #expect(open.status == 206)
        #expect(open.header("Content-Range") == "bytes 1000-65535/65536")
        #expect(open.body == all.subdata(in: 1000..<all.count))
        let closed = try Curl.run(["-r", "10-19", url])
        #expect(closed.status == 206)
        #expect(closed.header("Content-Length") == "10")
        #expect(closed.body == all.subdata(in: 10..<20))
        let suffix = try Curl.run(["-H", "Range: bytes=-16", url])
        #expect(suffix.header("Content-Range") == "bytes 65520-65535/65536")
        #expect(suffix.body == all.suffix(16))
        let beyond = try Curl.run(["-H", "Range: bytes=65536-", url])
        #expect(beyond.status == 416)
        #expect(beyond.header("Content-Range") == "bytes */65536")
        let ranged = try await HTTPClient.fetch(URL(string: url)!, headers: ["Range": "bytes=65000-"])
        #expect(ranged.status == 206)
        #expect(ranged.body == all.subdata(in: 65000..<all.count))
    }

    @Test("storage requests carry no API key and no Authorization; the log keeps origin, path and query")
    func noCredentialsToStorage() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let session = registry.issueSession(principalId: "p")
        let response = try await HTTPClient.fetch(registry.api("/api/download/\(Fixture.secret)"), key: Fixture.publishable,
                                                  headers: ["Authorization": "Bearer \(session)"])
        let url = try #require(JSON.object(response.body)?["downloadUrl"] as? String)
        _ = try await HTTPClient.fetch(URL(string: url)!)
        let log = registry.requestLog()
        #expect(log.map(\.origin) == [.api, .storage])
        let api = log[0], storage = log[1]
        #expect(api.path == "/api/download/\(Fixture.secret)")
        #expect(api.header("x-api-key") == Fixture.publishable)
        #expect(api.header("Authorization") == "Bearer \(session)")
        #expect(storage.header("X-API-Key") == nil)
        #expect(storage.header("Authorization") == nil)
        #expect(storage.path == "/blobs/\(Fixture.secret)/2.0.0")
        #expect(storage.query?.contains("sig=") == true)
        #expect(storage.target == storage.path + "?" + storage.query!)
        registry.clearRequestLog()
        #expect(registry.requestLog().isEmpty)
    }

    @Test("a tampered or missing signature is 403; HEAD answers the length without a body", .requires(.curl))
    func signatures() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let url = try await Self.downloadURL(registry)
        let tampered = url.replacingOccurrences(of: "exp=", with: "exp=1")
        #expect(try Curl.run([tampered]).status == 403)
        let unsigned = registry.storageBaseURL.absoluteString + "/blobs/tiny/1.0.0"
        let result = try Curl.run([unsigned])
        #expect(result.status == 403)
        #expect(JSON.errorCode(result.body) == "invalid_signature")
        let head = try Curl.run(["-I", url])
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == "65536")
        #expect(head.header("Accept-Ranges") == "bytes")
        let c = try RawConnection(port: registry.storagePort)
        c.send(RawConnection.get(pathAndQuery(url)).replacingOccurrences(of: "GET ", with: "HEAD "))
        #expect(c.readHead().head?.header("Content-Length") == "65536")
        #expect(c.readToEnd().body.isEmpty)
    }

    @Test("a URL signed with a TTL in the past is answered 403", .requires(.curl))
    func expiry() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let url = try #require(registry.signedDownloadURL(modelId: Fixture.tiny, ttl: -10))
        let result = try Curl.run([url.absoluteString])
        #expect(result.status == 403)
        #expect(JSON.errorCode(result.body) == "url_expired")
        let fresh = try #require(registry.signedDownloadURL(modelId: Fixture.tiny))
        #expect(try Curl.run([fresh.absoluteString]).status == 200)
    }

    @Test("32 concurrent downloads all complete with the right bytes and are all open at once")
    func concurrentDownloads() async throws {
        var catalog = Fixture.catalog()
        // Bigger than the server's send buffer plus the client's fixed 64 KiB receive buffer, so every
        // response is still being sent when its head arrives.
        catalog.add(model: RegistryModel(modelId: "big", version: "1", artifact: .generated(size: 8 << 20, seed: 3)))
        let registry = try Fixture.start(catalog)
        defer { registry.stop() }
        let url = try #require(registry.signedDownloadURL(modelId: "big"))
        let expected = registry.sha256(modelId: "big")
        let connections = try (0..<32).map { _ in try RawConnection(port: registry.storagePort, timeout: 20, receiveBuffer: 64 << 10) }
        for c in connections { c.send(RawConnection.get(pathAndQuery(url.absoluteString))) }
        for c in connections {
            let (head, _) = c.readHead()
            #expect(head?.status == 200)
        }
        #expect(registry.openDownloads == 32)
        #expect(registry.maxConcurrentDownloads == 32)
        for c in connections {
            let (body, end) = c.readBody(count: 8 << 20)
            #expect(end == nil)
            #expect(SHA256Hasher.hash(Data(body)).hex == expected)
        }
    }

    @Test("32 concurrent downloads through URLSession complete with the right bytes")
    func concurrentURLSession() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let session = HTTPClient.session(connections: 32)
        defer { session.finishTasksAndInvalidate() }
        let expected = try #require(registry.artifactBytes(modelId: Fixture.tiny))
        let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    let meta = try await HTTPClient.fetch(registry.api("/api/download/tiny"), key: Fixture.publishable, session: session)
                    let url = URL(string: JSON.object(meta.body)!["downloadUrl"] as! String)!
                    return try await HTTPClient.fetch(url, session: session).body
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(bodies.count == 32)
        #expect(bodies.allSatisfy { $0 == expected })
        // The server thread notes the end of a download just after its last byte is sent.
        #expect(eventually { registry.openDownloads == 0 })
        #expect((1...32).contains(registry.maxConcurrentDownloads))
    }
}
#endif

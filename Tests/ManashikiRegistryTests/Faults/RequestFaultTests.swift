#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
@testable import ManashikiRegistry

@Suite("Request-level faults")
struct RequestFaultTests {
    @Test("503 twice then 200: an HTML 5xx fires exactly `count` times")
    func statusCount() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        registry.setFault(.status(503, count: 2), endpoint: .catalog)
        var statuses: [Int] = []
        for _ in 0..<3 {
            let response = try await HTTPClient.fetch(registry.api("/api/models"), key: Fixture.publishable)
            statuses.append(response.status)
            if response.status == 503 {
                #expect(response.header("Content-Type")?.hasPrefix("text/html") == true)
                #expect(String(decoding: response.body, as: UTF8.self).contains("<html>"))
                #expect(JSON.object(response.body) == nil)
            }
        }
        #expect(statuses == [503, 503, 200])
        #expect(registry.faults.isEmpty)
    }

    @Test("429 carries Retry-After as delta-seconds, as an HTTP-date, or not at all", .requires(.curl))
    func rateLimited() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let url = registry.api("/api/models/tiny").absoluteString
        registry.setFault(.rateLimited(retryAfter: .seconds(7), count: 1), modelId: "tiny", endpoint: .model)
        let seconds = try Curl.run(["-H", "X-API-Key: \(Fixture.publishable)", url])
        #expect(seconds.status == 429)
        #expect(seconds.header("Retry-After") == "7")
        #expect(JSON.errorCode(seconds.body) == "rate_limited")
        let date = Date(timeIntervalSince1970: 1_800_000_000)
        registry.setFault(.rateLimited(retryAfter: .date(date), count: 1), modelId: "tiny", endpoint: .model)
        let dated = try Curl.run(["-H", "X-API-Key: \(Fixture.publishable)", url])
        #expect(dated.header("Retry-After") == "Fri, 15 Jan 2027 08:00:00 GMT")
        registry.setFault(.rateLimited(retryAfter: nil, count: 1), modelId: "tiny", endpoint: .model)
        let bare = try Curl.run(["-H", "X-API-Key: \(Fixture.publishable)", url])
        #expect(bare.status == 429)
        #expect(bare.header("Retry-After") == nil)
        #expect(try Curl.run(["-H", "X-API-Key: \(Fixture.publishable)", url]).status == 200)
    }

    @Test("an error fault answers the contract's JSON error body with the given status and code")
    func errorBody() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        registry.setFault(.error(status: 500, code: "internal", message: "boom", count: 1), endpoint: .session)
        let response = try await HTTPClient.fetch(registry.api("/api/session"), method: "POST", key: Fixture.legacy,
                                                  body: JSON.data(["principalId": "p", "ttlSec": 3600]))
        #expect(response.status == 500)
        #expect(JSON.errorCode(response.body) == "internal")
        #expect(JSON.errorMessage(response.body) == "boom")
    }

    @Test("a fault for one model leaves other models alone; a model-less fault matches every model")
    func scoping() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        registry.setFault(.status(502), modelId: Fixture.tiny, endpoint: .model)
        #expect(try await HTTPClient.fetch(registry.api("/api/models/tiny"), key: Fixture.publishable).status == 502)
        #expect(try await HTTPClient.fetch(registry.api("/api/models/\(Fixture.old)"), key: Fixture.publishable).status == 200)
        registry.setFault(.status(504), endpoint: .model)
        #expect(try await HTTPClient.fetch(registry.api("/api/models/\(Fixture.old)"), key: Fixture.publishable).status == 504)
        #expect(try await HTTPClient.fetch(registry.api("/api/models/tiny"), key: Fixture.publishable).status == 502)
        registry.clearFaults()
        #expect(try await HTTPClient.fetch(registry.api("/api/models/tiny"), key: Fixture.publishable).status == 200)
    }

    @Test("redirects point to another origin, to plain http on a remote host, or to file:", .requires(.curl))
    func redirects() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let url = try await StorageOriginTests.downloadURL(registry)
        let target = pathAndQuery(url)
        registry.setFault(.redirect(to: .otherOrigin, count: 1), modelId: Fixture.tiny, endpoint: .storage)
        let other = try Curl.run([url])
        #expect(other.status == 302)
        #expect(other.header("Location") == "http://localhost:\(registry.storagePort)\(target)")
        registry.setFault(.redirect(to: .remoteHTTP, status: 307, count: 1), modelId: Fixture.tiny, endpoint: .storage)
        let remote = try Curl.run([url])
        #expect(remote.status == 307)
        #expect(remote.header("Location") == "http://example.com\(target)")
        registry.setFault(.redirect(to: .file, count: 1), modelId: Fixture.tiny, endpoint: .storage)
        let file = try Curl.run([url])
        #expect(file.header("Location")?.hasPrefix("file:///") == true)
        // The other-origin redirect is reachable and serves the same bytes.
        registry.setFault(.redirect(to: .otherOrigin, count: 1), modelId: Fixture.tiny, endpoint: .storage)
        let followed = try Curl.run(["-L", url])
        #expect(followed.status == 200)
        #expect(followed.body == registry.artifactBytes(modelId: Fixture.tiny))
        registry.setFault(.redirect(to: .url("https://cdn.example/x"), count: 1), endpoint: .download)
        let api = try Curl.run(["-H", "X-API-Key: \(Fixture.publishable)", registry.api("/api/download/tiny").absoluteString])
        #expect(api.status == 302)
        #expect(api.header("Location") == "https://cdn.example/x")
    }

    @Test("a connection reset before the head reaches the client as a reset or an empty reply", .requires(.curl))
    func resetBeforeHead() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        registry.setFault(.connectionReset(count: 1), endpoint: .catalog)
        let c = try RawConnection(port: registry.apiPort)
        c.send(RawConnection.get("/api/models", headers: ["X-API-Key: \(Fixture.publishable)"]))
        let (body, end) = c.readToEnd()
        #expect(body.isEmpty)
        #expect(end == .reset || end == .closed)
        registry.setFault(.connectionReset(count: 1), endpoint: .catalog)
        let curl = try Curl.run(["-H", "X-API-Key: \(Fixture.publishable)", registry.api("/api/models").absoluteString])
        #expect(curl.exitCode == 56 || curl.exitCode == 52)
        #expect(curl.status == 0)
    }
}
#endif

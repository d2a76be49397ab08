#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
@testable import ManashikiRegistry

@Suite("Admin endpoint")
struct AdminEndpointTests {
    @Test("POST /_admin/faults arms a JSON fault that fires `count` times; GET lists it; DELETE clears", .requires(.curl))
    func faultsOverHTTP() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let admin = registry.api("/_admin/faults").absoluteString
        let armed = try Curl.run(["-X", "POST", "--data", #"{"endpoint":"catalog","type":"status","status":503,"count":2}"#, admin])
        #expect(armed.status == 200)
        let listed = try #require(JSON.object(armed.body)?["faults"] as? [[String: Any]])
        #expect(listed.count == 1)
        #expect(listed.first?["count"] as? Int == 2)
        let catalog = registry.api("/api/models").absoluteString
        #expect(try Curl.run(["-H", "X-API-Key: \(Fixture.publishable)", catalog]).status == 503)
        let remaining = try Curl.run([admin])
        #expect(((JSON.object(remaining.body)?["faults"] as? [[String: Any]])?.first?["count"] as? Int) == 1)
        #expect(try Curl.run(["-H", "X-API-Key: \(Fixture.publishable)", catalog]).status == 503)
        #expect(try Curl.run(["-H", "X-API-Key: \(Fixture.publishable)", catalog]).status == 200)

        _ = try Curl.run(["-X", "POST", "--data", #"{"faults":[{"endpoint":"storage","modelId":"tiny","type":"truncated_body","keepBytes":5},{"endpoint":"download","type":"wrong_digest"}]}"#, admin])
        #expect(registry.faults.count == 2)
        let cleared = try Curl.run(["-X", "DELETE", admin])
        #expect((JSON.object(cleared.body)?["faults"] as? [Any])?.isEmpty == true)
        #expect(registry.faults.isEmpty)
    }

    @Test("an invalid fault is 400 with the JSON path and the fix", .requires(.curl))
    func invalidFault() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let result = try Curl.run(["-X", "POST", "--data", #"{"endpoint":"storage","type":"explode"}"#,
                                   registry.api("/_admin/faults").absoluteString])
        #expect(result.status == 400)
        let message = try #require(JSON.errorMessage(result.body))
        #expect(message.contains("$.type"))
        #expect(message.contains("truncated_body"))
    }

    @Test("every fault type round-trips through the admin JSON", .requires(.curl))
    func roundTrip() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let faults: [RegistryFault] = [
            .rateLimited(retryAfter: .seconds(3)), .rateLimited(retryAfter: .date(Date(timeIntervalSince1970: 1_800_000_000))),
            .rateLimited(retryAfter: nil), .status(502), .error(status: 401, code: "invalid_api_key", message: "m"),
            .truncatedBody(keepBytes: 3, declareLength: false), .corruptByte(offset: 9), .extraBytes(nil),
            .extraBytes(4, declareLength: true), .noContentLength(chunked: false), .slowDrip(chunkBytes: 2, intervalMilliseconds: 3),
            .stall(afterBytes: 1), .ignoreRange(), .expiredURL(status: 410), .wrongDigest(), .missingDigest(asNull: true),
            .redirect(to: .remoteHTTP, status: 301), .redirect(to: .url("ftp://x/y")), .downloadURL(.file),
            .connectionReset(afterBytes: 10, count: 4), .connectionReset(),
        ]
        let tuf: [RegistryFault] = [.tufRollback(.timestamp), .tufRollback(.targets), .tufExpired(.snapshot), .tufMisSigned(.snapshot),
                                    .tufMisSigned(.timestamp, modifiedAfterSigning: true, count: 2), .status(503)]
        let rules = faults.map { RegistryFaultRule(endpoint: .storage, modelId: "tiny", fault: $0) }
            + tuf.map { RegistryFaultRule(endpoint: .tufMetadata, fault: $0) }
        for rule in rules {
            registry.clearFaults()
            let body = JSON.data(FaultJSON.encode(rule))
            let result = try Curl.run(["-X", "POST", "--data-binary", String(decoding: body, as: UTF8.self),
                                       registry.api("/_admin/faults").absoluteString])
            #expect(result.status == 200)
            #expect(registry.faults == [rule])
        }
    }

    @Test("a TUF fault is refused off the tuf endpoint, and the tuf endpoint refuses faults that mean nothing there, naming the field",
          .requires(.curl), arguments: [
              (#"{"endpoint":"storage","type":"tuf_rollback","role":"timestamp"}"#, "$.endpoint"),
              (#"{"endpoint":"tuf","type":"wrong_digest"}"#, "$.endpoint"),
              (#"{"endpoint":"tuf","type":"tuf_expired","role":"root"}"#, "$.role"),
              (#"{"endpoint":"tuf","type":"tuf_expired"}"#, "$.role"),
              (#"{"endpoint":"tuf","type":"tuf_mis_signed","role":"snapshot","signature":"forged"}"#, "$.signature"),
          ])
    func invalidTUFFault(_ body: String, _ field: String) throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let result = try Curl.run(["-X", "POST", "--data", body, registry.api("/_admin/faults").absoluteString])
        #expect(result.status == 400)
        #expect(try #require(JSON.errorMessage(result.body)).hasPrefix(field + ":"))
        #expect(registry.faults.isEmpty)
    }

    @Test("the request log and download statistics are readable over HTTP; admin requests are not logged", .requires(.curl))
    func logAndStats() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        _ = try Curl.run(["-H", "X-API-Key: \(Fixture.publishable)", registry.api("/api/models?x=1").absoluteString])
        let log = try Curl.run([registry.api("/_admin/requests").absoluteString])
        let requests = try #require(JSON.object(log.body)?["requests"] as? [[String: Any]])
        #expect(requests.count == 1)
        #expect(requests.first?["origin"] as? String == "api")
        #expect(requests.first?["path"] as? String == "/api/models")
        #expect(requests.first?["query"] as? String == "x=1")
        let headers = try #require(requests.first?["headers"] as? [[String]])
        // Over HTTP any local process can read the log: secrets are redacted there.
        #expect(headers.contains(["X-API-Key", "[redacted]"]))
        #expect(!String(decoding: log.body, as: UTF8.self).contains(Fixture.publishable))
        #expect(registry.requestLog().first?.header("X-API-Key") == Fixture.publishable)
        #expect(AdminEndpoint.redactSignature("/blobs/a/1?exp=5&sig=abcdef&x=1") == "/blobs/a/1?exp=5&sig=[redacted]&x=1")
        let stats = try Curl.run([registry.api("/_admin/stats").absoluteString])
        #expect(JSON.object(stats.body)?["openDownloads"] as? Int == 0)
        _ = try Curl.run(["-X", "DELETE", registry.api("/_admin/requests").absoluteString])
        #expect(registry.requestLog().isEmpty)
        let expire = try Curl.run(["-X", "POST", registry.api("/_admin/sessions/expire").absoluteString])
        #expect(expire.status == 200)
    }

    @Test("with an admin token configured, admin requests without it are 403", .requires(.curl))
    func adminToken() throws {
        var configuration = RegistryConfiguration()
        configuration.adminToken = "let-me-in"
        let registry = try Fixture.start(configuration: configuration)
        defer { registry.stop() }
        let url = registry.api("/_admin/faults").absoluteString
        let denied = try Curl.run([url])
        #expect(denied.status == 403)
        #expect(JSON.errorCode(denied.body) == "forbidden")
        #expect(try Curl.run(["-H", "X-Admin-Token: let-me-in", url]).status == 200)
    }

    @Test("faults listed in the catalog are armed at start-up")
    func startupFaults() async throws {
        var catalog = Fixture.catalog()
        catalog.faults = [RegistryFaultRule(endpoint: .model, modelId: Fixture.tiny, fault: .status(500, count: 1))]
        let registry = try Fixture.start(catalog)
        defer { registry.stop() }
        #expect(try await HTTPClient.fetch(registry.api("/api/models/tiny"), key: Fixture.publishable).status == 500)
        #expect(try await HTTPClient.fetch(registry.api("/api/models/tiny"), key: Fixture.publishable).status == 200)
    }
}
#endif

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
@testable import ManashikiRegistry

@Suite("POST /api/session")
struct SessionEndpointTests {
    @Test("an sk_live_ key gets a mks_ token echoing the principal with an ISO 8601 expiry")
    func issues() async throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let before = Date()
        let response = try await HTTPClient.fetch(registry.api("/api/session"), method: "POST", key: Fixture.legacy,
                                                  body: JSON.data(["principalId": "doctor-abc123", "ttlSec": 600]))
        #expect(response.status == 200)
        let body = try #require(JSON.object(response.body))
        #expect((body["token"] as? String)?.hasPrefix("mks_") == true)
        #expect(body["principalId"] as? String == "doctor-abc123")
        let expiresAt = try #require(body["expiresAt"] as? String)
        #expect(expiresAt.hasSuffix("Z"))
        let date = try #require(ISO8601DateFormatter().date(from: expiresAt))
        #expect(date > before)
    }

    @Test("publishable, mk_live_ and mk_svc_ keys are answered 403 forbidden_scope", .requires(.curl))
    func forbidden() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        for key in [Fixture.publishable, Fixture.live, Fixture.service] {
            let result = try Curl.run(["-X", "POST", "-H", "X-API-Key: \(key)", "-H", "Content-Type: application/json",
                                       "--data", #"{"principalId":"p","ttlSec":3600}"#, registry.api("/api/session").absoluteString])
            #expect(result.status == 403)
            #expect(JSON.errorCode(result.body) == "forbidden_scope")
        }
    }

    @Test("ttlSec outside 60…86400, a missing principal or a non-JSON body is 400 bad_request", .requires(.curl))
    func badRequests() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let bodies = [#"{"principalId":"p","ttlSec":59}"#, #"{"principalId":"p","ttlSec":86401}"#,
                      #"{"principalId":"p"}"#, #"{"ttlSec":3600}"#, #"{"principalId":"","ttlSec":3600}"#, "not json", "[1]"]
        for body in bodies {
            let result = try Curl.run(["-X", "POST", "-H", "X-API-Key: \(Fixture.legacy)", "--data", body,
                                       registry.api("/api/session").absoluteString])
            #expect(result.status == 400, "body \(body)")
            #expect(JSON.errorCode(result.body) == "bad_request")
        }
        let edge = try Curl.run(["-X", "POST", "-H", "X-API-Key: \(Fixture.legacy)", "--data", #"{"principalId":"p","ttlSec":86400}"#,
                                 registry.api("/api/session").absoluteString])
        #expect(edge.status == 200)
    }
}
#endif

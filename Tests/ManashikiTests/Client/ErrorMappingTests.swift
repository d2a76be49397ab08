import Foundation
import Testing
@testable import Manashiki
import ManashikiTestSupport

/// Every row of CONTRACT §4, through the client's single response check.
@Suite("Error table (CONTRACT §4)")
struct ErrorMappingTests {
    @Test("each status and code maps to its APIError", arguments: [
        (400, "bad_request", APIError.badRequest("ttl out of range")),
        (401, "invalid_api_key", .unauthorized),
        (401, "session_required", .sessionRequired),
        (401, "invalid_session", .invalidSession),
        (403, "forbidden_scope", .forbiddenScope),
        (404, "not_found", .modelNotFound("whisper-medical-ja-fp16")),
        (410, "model_sunset", .modelSunset("whisper-medical-ja-fp16")),
        (429, "rate_limited", .rateLimited(retryAfter: nil)),
        (500, "internal", .server(status: 500, message: "ttl out of range")),
        (503, "unavailable", .server(status: 503, message: "ttl out of range")),
        (409, "conflict", .unexpectedStatus(status: 409, message: "ttl out of range")),
    ])
    func rows(status: Int, code: String, expected: APIError) async throws {
        let (client, _) = try makeClient { _ in .error(status, code: code, message: "ttl out of range") }
        await #expect(throws: expected) { _ = try await client.getModel("whisper-medical-ja-fp16") }
    }

    @Test("a proxy's HTML 502 is a server error decided by the status alone")
    func htmlProxyError() async throws {
        let (client, _) = try makeClient { _ in
            MockResponse(status: 502, headers: ["Content-Type": "text/html"], chunks: [Data("<html><body>Bad Gateway</body></html>".utf8)])
        }
        await #expect(throws: APIError.server(status: 502, message: nil)) { _ = try await client.listModels() }
    }

    @Test("an empty 401 without a body is unauthorized")
    func emptyUnauthorized() async throws {
        let (client, _) = try makeClient { _ in MockResponse(status: 401) }
        await #expect(throws: APIError.unauthorized) { _ = try await client.listModels() }
    }

    @Test("Retry-After as delta-seconds")
    func retryAfterSeconds() async throws {
        let (client, _) = try makeClient { _ in .error(429, code: "rate_limited", headers: ["Retry-After": "17"]) }
        await #expect(throws: APIError.rateLimited(retryAfter: 17)) { _ = try await client.listModels() }
    }

    @Test("Retry-After as an HTTP date")
    func retryAfterDate() async throws {
        let date = Date().addingTimeInterval(120)
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "GMT")
        f.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let header = f.string(from: date)
        let (client, _) = try makeClient { _ in .error(429, code: "rate_limited", headers: ["Retry-After": header]) }
        do {
            _ = try await client.listModels()
            Issue.record("expected rateLimited")
        } catch APIError.rateLimited(let seconds) {
            // The date has whole seconds, and a loaded machine may take long to get here: the
            // delay is what is left of the 120 s when the answer was read, never more.
            let s = try #require(seconds)
            let left = 120 - Date().timeIntervalSince(date.addingTimeInterval(-120))
            #expect(s <= 121 && Double(s) >= left - 2, "\(s) s, with \(left) s left")
        }
    }

    @Test("Retry-After parsing: past dates give 0, garbage gives nil, huge values saturate")
    func retryAfterParsing() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        #expect(RetryAfter.seconds(from: "Sun, 06 Nov 1994 08:49:37 GMT", now: now) == 0)
        #expect(RetryAfter.seconds(from: "soon", now: now) == nil)
        #expect(RetryAfter.seconds(from: "-5", now: now) == nil)
        #expect(RetryAfter.seconds(from: nil, now: now) == nil)
        #expect(RetryAfter.seconds(from: "99999999999999999999999", now: now) == Int.max)
    }

    @Test("a server message echoing the key or the session token is redacted")
    func redactsEchoedSecrets() async throws {
        let token = "mks_supersecret_session_token"
        let dir = ScratchDirectory()
        let (client, _) = try makeClient(storage: dir.url) { request in
            let key = request.headers["X-API-Key"] ?? ""
            return .error(400, code: "bad_request", message: "bad key \(key) or token \(token)")
        }
        do {
            _ = try await client.downloadModel("tiny", session: token)
            Issue.record("expected an error")
        } catch let error as APIError {
            let text = error.localizedDescription + "\(error)"
            #expect(!text.contains(TestKeys.publishable))
            #expect(!text.contains(token))
            #expect(text.contains("[redacted]"))
        }
    }

    @Test("no error's text contains the key, a token or a signed query string")
    func noSecretsInAnyCase() {
        let all: [APIError] = [
            .invalidAPIKey, .forbiddenScope, .invalidModelId("x"), .badRequest("m"), .unauthorized, .sessionRequired,
            .invalidSession, .modelNotFound("m"), .modelSunset("m"), .rateLimited(retryAfter: 3), .rateLimited(retryAfter: nil),
            .server(status: 500, message: nil), .unexpectedStatus(status: 418, message: "m"),
            .integrityMismatch(expected: "a", actual: "b"), .bodyTooLong(expected: 1), .bodyTooShort(expected: 2, received: 1),
            .refusedURL("r"), .downloadURLExpired(modelId: "m", status: 403), .invalidResponse("d"), .registryDisagrees("d"), .transport("t"), .fileSystem(operation: "write", path: "/p", code: ENOSPC),
        ]
        for error in all {
            let text = error.localizedDescription
            #expect(!text.isEmpty)
            #expect(!text.contains("AbCdEfGhIjKlMnOpQrSt"))
            #expect(!text.contains("sig="))
        }
    }

    @Test("a disk-full failure tells the user to free space")
    func diskFullHint() {
        #expect(APIError.fileSystem(operation: "write", path: "/m/a.bin", code: ENOSPC).localizedDescription.contains("Free up disk space"))
    }

    @Test("messages read as sentences: one second, an unexpected status with the server's words quoted, a disagreeing ticket blames no proxy")
    func wording() {
        let ticket = APIError.registryDisagrees("the registry serves 999 bytes of a but listed 10; it is being updated, try again shortly").errorDescription ?? ""
        #expect(ticket == "The registry's answers disagree: the registry serves 999 bytes of a but listed 10; it is being updated, try again shortly.")
        #expect(APIError.rateLimited(retryAfter: 1).errorDescription == "The registry is rate limiting this key. Try again in 1 second.")
        #expect(APIError.rateLimited(retryAfter: 30).errorDescription == "The registry is rate limiting this key. Try again in 30 seconds.")
        #expect(APIError.unexpectedStatus(status: 418, message: "fresh URLs refused, try again").errorDescription
                == #"The registry answered HTTP 418, a status this SDK does not expect (it said: "fresh URLs refused, try again"). Check the base URL points at a Manashiki registry, or update the SDK."#)
    }
}

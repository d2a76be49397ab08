import Foundation
import Testing
@testable import Manashiki
import ManashikiTestSupport

@Suite("API keys (CONTRACT §1)")
struct APIKeyTests {
    @Test("each key format maps to its kind, tier and organisation", arguments: [
        (TestKeys.publishable, APIKey.Kind.publishable, APIKey.Tier.client, "acme" as String?),
        (TestKeys.live, .live, .server, "acme-labs"),
        (TestKeys.service, .service, .server, "acme"),
        (TestKeys.legacy, .legacy, .server, nil),
    ])
    func validKeys(key: String, kind: APIKey.Kind, tier: APIKey.Tier, org: String?) throws {
        let parsed = try APIKey(key)
        #expect(parsed.kind == kind)
        #expect(parsed.tier == tier)
        #expect(parsed.organization == org)
        #expect(parsed.canIssueSessions == (kind == .legacy))
    }

    @Test("malformed keys are rejected", arguments: [
        "", "mk_pub_acme_...", "mk_pub_acme_xxxxxxxxxxxxxxxxxxx", // 19 random characters
        " mk_pub_acme_AbCdEfGhIjKlMnOpQrSt01", "mk_pub_acme_AbCdEfGhIjKlMnOpQrSt01\n",
        "mk_pub_Acme_AbCdEfGhIjKlMnOpQrSt01", "mk_pub_-acme_AbCdEfGhIjKlMnOpQrSt01",
        "mk_pub__AbCdEfGhIjKlMnOpQrSt01", "mk_pub_AbCdEfGhIjKlMnOpQrSt01",
        "mk_pub_acme_AbCdEfGhIjKlMnOpQrSt-1", "mk_test_acme_AbCdEfGhIjKlMnOpQrSt01",
        "sk_live_short", "sk_live_AbCdEfGhIjKlMnOpQrSt0_", "sk_test_AbCdEfGhIjKlMnOpQrSt01",
        "MK_PUB_acme_AbCdEfGhIjKlMnOpQrSt01", "mk_pub_acme_AbCdEfGhIjKlMnOpQrSt01ü",
    ])
    func invalidKeys(key: String) {
        #expect(throws: APIError.invalidAPIKey) { try APIKey(key) }
        #expect(!APIKey.isValid(key))
    }

    @Test("the guide's placeholder key with 24 x's passes format validation")
    func guidePlaceholder() throws {
        #expect(try APIKey("mk_pub_acme_xxxxxxxxxxxxxxxxxxxxxxxx").organization == "acme")
    }

    @Test("a key never appears in description, debugDescription, dump or the client's description")
    func redaction() throws {
        let key = try APIKey(TestKeys.live)
        var dumped = ""
        dump(key, to: &dumped)
        let (client, _) = try makeClient(TestKeys.live) { _ in .json(200, "{}") }
        var dumpedClient = ""
        dump(client, to: &dumpedClient)
        for text in [key.description, key.debugDescription, dumped, "\(key)", String(reflecting: key), client.description, dumpedClient, "\(client)"] {
            #expect(!text.contains("AbCdEfGhIjKlMnOpQrSt01"), "leaked in: \(text)")
        }
        #expect(key.description == "mk_live_acme-labs_…")
    }

    @Test("the initializer throws invalidAPIKey before anything is sent")
    func initRejectsWithoutTraffic() {
        let mock = MockTransport { _ in .json(200, "{}") }
        #expect(throws: APIError.invalidAPIKey) {
            _ = try ManashikiClient(apiKey: "mk_pub_acme_...", transport: mock)
        }
        #expect(mock.requests.isEmpty)
    }

    @Test("the client exposes the tier and organisation")
    func clientExposesTier() throws {
        let (client, _) = try makeClient(TestKeys.publishable) { _ in .json(200, "{}") }
        #expect(client.keyTier == .client)
        #expect(client.organization == "acme")
    }
}

import Foundation
import Manashiki
import ManashikiTestSupport

/// Keys of each format, valid per CONTRACT §1 (test values, not real keys).
enum TestKeys {
    static let publishable = "mk_pub_acme_AbCdEfGhIjKlMnOpQrSt01"
    static let live = "mk_live_acme-labs_AbCdEfGhIjKlMnOpQrSt01"
    static let service = "mk_svc_acme_AbCdEfGhIjKlMnOpQrSt0123"
    static let legacy = "sk_live_AbCdEfGhIjKlMnOpQrSt01"
}

func makeClient(_ key: String = TestKeys.publishable, storage: URL? = nil, _ handler: @escaping MockTransport.Handler) throws -> (ManashikiClient, MockTransport) {
    let mock = MockTransport(handler)
    let client = try ManashikiClient(apiKey: key, baseURL: URL(string: "https://models.example.test")!, transport: mock, storageDirectory: storage)
    return (client, mock)
}

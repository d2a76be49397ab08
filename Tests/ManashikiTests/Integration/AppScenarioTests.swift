import Foundation
import Testing
@testable import Manashiki
import ManashikiRegistry
import ManashikiCore

/// The SDK used as an app uses it, over real loopback HTTP against the development registry.
@Suite("An app using the SDK against the development registry")
struct AppScenarioTests {
    @Test("a 404 to the catalog (the base URL is not a registry's API) says to check the base URL, not 'No model \"\"'")
    func catalogNotFound() async throws {
        let f = try RegistryFixture()
        f.registry.setFault(.status(404), endpoint: .catalog)
        do {
            _ = try await f.client().listModels()
            Issue.record("a 404 must not be a silent success")
        } catch let error as APIError {
            guard case .unexpectedStatus(404, _) = error else { Issue.record("got \(error)"); return }
            let text = error.localizedDescription
            #expect(text.contains("Check the base URL") && !text.contains("\"\""), "\(text)")
            #expect(!text.contains(RegistryFixture.publicKey))
        }
        // A 404 about one model still names it (CONTRACT §4).
        await #expect(throws: APIError.modelNotFound("no-such-model")) { _ = try await f.client().getModel("no-such-model") }
    }

    @Test("a server key in an app is warned about once per kind, naming the kind and never the secret", arguments: [
        TestKeys.live, TestKeys.service, TestKeys.legacy,
    ])
    func serverKeyInApp(secret: String) throws {
        let key = try APIKey(secret)
        let warnings = Locked<[String]>([])
        #expect(ManashikiClient.warnIfEmbedded(key, inApp: true) { m in warnings.withLock { $0.append(m) } })
        #expect(!ManashikiClient.warnIfEmbedded(key, inApp: true) { m in warnings.withLock { $0.append(m) } })
        let text = try #require(warnings.current.first)
        #expect(warnings.current.count == 1)
        #expect(text.contains(key.kind.rawValue) && text.contains("mk_pub_") && !text.contains("AbCdEfGhIjKlMnOpQrSt"))
    }

    @Test("a publishable key, or a server key outside an app, is not warned about")
    func noWarning() throws {
        let warned = Locked(false)
        #expect(!ManashikiClient.warnIfEmbedded(try APIKey(TestKeys.publishable), inApp: true) { _ in warned.withLock { $0 = true } })
        #expect(!ManashikiClient.warnIfEmbedded(try APIKey(TestKeys.legacy), inApp: false) { _ in warned.withLock { $0 = true } })
        #expect(try APIKey(TestKeys.publishable).appEmbeddingWarning == nil)
        #expect(!warned.current)
    }
}

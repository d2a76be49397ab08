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

    /// Storage-host requests for the `tiny` artifact so far.
    func transfers(_ f: RegistryFixture) -> Int {
        f.registry.requestLog().filter { $0.origin == .storage }.count
    }

    @Test("two tasks downloading the same model at once share one transfer and one verified install")
    func concurrentSameModel() async throws {
        let f = try RegistryFixture()
        f.registry.setFault(.slowDrip(chunkBytes: 64 << 10, intervalMilliseconds: 5), modelId: "tiny", endpoint: .storage)
        let client = try f.client()
        let secondProgress = Locked<[(Int64, Int64?)]>([])
        async let a = client.downloadModel("tiny")
        async let b = client.downloadModel("tiny") { w, t in secondProgress.withLock { $0.append((w, t)) } }
        let (first, second) = try await (a, b)
        let expected = try #require(f.registry.artifactBytes(modelId: "tiny"))
        #expect(try Data(contentsOf: f.installed) == expected)
        #expect(first.sha256 == second.sha256 && first.localURL == second.localURL && first.verified && second.verified)
        #expect(transfers(f) == 1, "each call transferred the artifact: \(transfers(f)) storage requests")
        #expect(FileIdentity.of(f.installed) == first.fileIdentity && first.fileIdentity == second.fileIdentity)
        #expect(secondProgress.current.last.map { $0.0 == Int64(expected.count) && $0.1 == Int64(expected.count) } ?? false)
        #expect(f.leftovers.isEmpty && f.storageRequestsAreClean)
    }

    @Test("a call waiting for another download of the model can be cancelled, and the other one still installs")
    func cancelWhileWaiting() async throws {
        let f = try RegistryFixture()
        // 3 MiB in about 2 s: the waiter is still waiting when it is cancelled, even on a loaded machine.
        f.registry.setFault(.slowDrip(chunkBytes: 64 << 10, intervalMilliseconds: 40), modelId: "tiny", endpoint: .storage)
        let client = try f.client()
        let started = Locked(false)
        let first = Task { try await client.downloadModel("tiny") { _, _ in started.withLock { $0 = true } } }
        while !started.current { try await Task.sleep(nanoseconds: 10_000_000) }
        let waiter = Task { try await client.downloadModel("tiny") }
        try await Task.sleep(nanoseconds: 50_000_000)
        waiter.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiter.value }
        let model = try await first.value
        #expect(try Data(contentsOf: model.localURL) == f.registry.artifactBytes(modelId: "tiny"))
        #expect(transfers(f) == 1 && f.leftovers.isEmpty)
    }
}

extension AppScenarioTests {
    @Test("a storage host's 429 with a short Retry-After is waited out and the download completes; a longer one, and the API's 429, are thrown with their delay")
    func storageRateLimited() async throws {
        let f = try RegistryFixture()
        f.registry.setFault(.rateLimited(retryAfter: .seconds(1), count: 1), modelId: "tiny", endpoint: .storage)
        let model = try await f.client().downloadModel("tiny")
        #expect(try Data(contentsOf: model.localURL) == f.registry.artifactBytes(modelId: "tiny") && model.verified)
        #expect(transfers(f) == 2 && f.storageRequestsAreClean)
        let previous = (try Data(contentsOf: f.installed), try f.inode(f.installed))
        f.registry.setFault(.rateLimited(retryAfter: .seconds(120)), modelId: "tiny", endpoint: .storage)
        await #expect(throws: APIError.rateLimited(retryAfter: 120)) { _ = try await f.client().downloadModel("tiny") }
        #expect(try f.previousIsIntact(previous))
        f.registry.clearFaults()
        f.registry.setFault(.rateLimited(retryAfter: .seconds(7)), endpoint: .download)
        await #expect(throws: APIError.rateLimited(retryAfter: 7)) { _ = try await f.client().downloadModel("tiny") }
    }

}

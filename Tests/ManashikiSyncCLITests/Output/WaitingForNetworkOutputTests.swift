import Foundation
import Testing
@testable import ManashikiSyncCLI
import ManashikiSync

@Suite("A download waiting for a network, as the CLI shows it")
struct WaitingForNetworkOutputTests {
    @Test("--json writes a model.waiting line; plain text says what it waits for and what bounds the wait")
    func rendered() throws {
        let out = BufferOutput(), clock = RendererFixtures.Clock()
        let json = JSONEventWriter(console: RendererFixtures.console(out, BufferOutput(), clock: clock))
        json.handle(.waitingForNetwork(modelId: "alpha"))
        let line = try #require(out.lines.first.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(line["type"] as? String == "model.waiting")
        #expect(line["modelId"] as? String == "alpha" && line["reason"] as? String == "network")
        #expect(line["schema"] as? String == "manashiki-sync/v1")

        let text = BufferOutput()
        let plain = PlainRenderer(console: RendererFixtures.console(text, BufferOutput(), clock: clock), verbosity: .normal)
        plain.handle(.waitingForNetwork(modelId: "alpha"))
        #expect(text.lines == ["alpha: waiting for a network the policy allows (policies.network); it continues when one appears (policies.downloadTimeoutSeconds bounds the wait)"])
    }
}

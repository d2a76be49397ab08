import Foundation
import Testing
@testable import Manashiki
import ManashikiTestSupport

/// The decisions of `BackgroundModelDownloads` (Apple's background URLSession), which Linux
/// cannot run: what a finished download becomes (here), and the completion-handler
/// hand-shake (below).
extension BackgroundDownloadTests {
    /// Where the system's session may have ended up after following redirects by itself.
    static let refusedFinalURLs = [
        "http://cdn.example.test/tiny.bin?sig=abc",   // plain http to another host
        "ftp://cdn.example.test/tiny.bin",
        "https://user:secret@cdn.example.test/tiny.bin",
    ]

    @Test("a file that a redirect fetched from a URL the policy refuses is not installed, although its digest matches", arguments: 0..<3)
    func refusedRedirect(index: Int) async throws {
        let s = ScriptedStorage()
        let (client, _) = try makeClient(storage: dir.url, s.handler)
        let (_, ticket) = try await client.backgroundDownloadRequest("tiny")
        let location = try handOver(s.artifact)
        let result = BackgroundSessionLogic.finish(client, location: location, status: 200,
                                                   finalURL: URL(string: Self.refusedFinalURLs[index]), ticket: ticket)
        guard case .failure(.refusedURL(let message)) = result else {
            Issue.record("\(Self.refusedFinalURLs[index]): \(result)")
            return
        }
        #expect(message.contains("redirected the background download of tiny"))
        #expect(!message.contains("secret") && !message.contains("sig=abc"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("tiny.bin").path))
    }

    @Test("a file from the signed https URL (or a loopback http one) is verified and installed")
    func allowedFinalURL() async throws {
        for final in ["https://cdn.example.test/tiny.bin?sig=abc", "http://127.0.0.1:8080/tiny.bin", nil] {
            let s = ScriptedStorage()
            let (client, _) = try makeClient(storage: dir.url, s.handler)
            let (_, ticket) = try await client.backgroundDownloadRequest("tiny")
            let result = BackgroundSessionLogic.finish(client, location: try handOver(s.artifact), status: 200,
                                                       finalURL: final.flatMap(URL.init(string:)), ticket: ticket)
            guard case .success(let model) = result else {
                Issue.record("\(final ?? "nil"): \(result)")
                continue
            }
            #expect(model.verified)
            #expect(try Data(contentsOf: dir.file("tiny.bin")) == s.artifact)
        }
    }

}

@Suite("Background sessions: the system's completion handler")
struct BackgroundEventsHandshakeTests {
    @Test("the system's completion handler runs once when the events are delivered after the app handed it over")
    func handlerThenEvents() {
        var h = BackgroundEventsHandshake<Int>()
        #expect(h.received(1).isEmpty)
        #expect(h.eventsDelivered() == [1])
        #expect(h.eventsDelivered().isEmpty)
    }

    @Test("events delivered before UIKit hands over the handler: the handler runs at once, not never")
    func eventsThenHandler() {
        var h = BackgroundEventsHandshake<Int>()
        #expect(h.eventsDelivered().isEmpty)
        #expect(h.received(1) == [1])
        // The next wake starts over: its handler waits for its own events.
        #expect(h.received(2).isEmpty)
        #expect(h.eventsDelivered() == [2])
    }

    @Test("a second handler before the first was used releases the first instead of dropping it")
    func twoHandlers() {
        var h = BackgroundEventsHandshake<Int>()
        #expect(h.received(1).isEmpty)
        #expect(h.received(2) == [1])
        #expect(h.eventsDelivered() == [2])
    }
}

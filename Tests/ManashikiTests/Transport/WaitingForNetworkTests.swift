import Foundation
import Testing
@testable import Manashiki
import ManashikiTestSupport
import ManashikiCore

/// A transport that, like URLSession with `waitsForConnectivity` when no network the policy
/// allows is up (`urlSession(_:taskIsWaitingForConnectivity:)`), says each request waits before
/// it is answered. FoundationNetworking never waits, so the Apple call itself is not run here.
struct WaitingTransport: HTTPTransport {
    let base: MockTransport
    let waitsOnlyFor: String?

    func stream(_ request: HTTPRequest, to consumer: any HTTPBodyConsumer) async throws {
        if waitsOnlyFor == nil || request.url.host == waitsOnlyFor { request.onWaitingForConnectivity?() }
        try await base.stream(request, to: consumer)
    }
}

@Suite("Waiting for a network (NetworkPolicy.waitsForConnectivity)")
struct WaitingForNetworkTests {
    @Test("a download whose transfer waits for a network tells DownloadOptions.onWaitingForNetwork, then continues when answered")
    func downloadWaits() async throws {
        let dir = ScratchDirectory()
        let s = ScriptedStorage()
        let transport = WaitingTransport(base: MockTransport(s.handler), waitsOnlyFor: "cdn.example.test")
        let client = try ManashikiClient(apiKey: TestKeys.publishable, baseURL: URL(string: "https://models.example.test")!,
                                         transport: transport, storageDirectory: dir.url)
        let waits = Locked(0)
        var options = DownloadOptions()
        options.onWaitingForNetwork = { waits.withLock { $0 += 1 } }
        let model = try await client.downloadModel("tiny", session: nil, expecting: nil, options: options)
        #expect(model.sha256 == s.sha)
        #expect(waits.current == 1) // the storage request waited; the API request did not
    }

    @Test("the observer is not part of a request's or the options' equality")
    func equality() {
        let url = URL(string: "https://cdn.example.test/x")!
        #expect(HTTPRequest(url: url, onWaitingForConnectivity: {}) == HTTPRequest(url: url))
        var a = DownloadOptions(), b = DownloadOptions()
        a.onWaitingForNetwork = {}
        a.onResume = { _ in }
        #expect(a == b)
        #expect(a.onWaitingForNetwork != nil && b.onWaitingForNetwork == nil)
        b.deadline = 5
        #expect(a != b)
    }
}

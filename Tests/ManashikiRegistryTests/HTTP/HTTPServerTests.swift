#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiLoopback
import Testing
@testable import ManashikiRegistry

@Suite("HTTP server behaviour")
struct HTTPServerTests {
    @Test("keep-alive serves several requests on one connection, including pipelined ones")
    func keepAliveAndPipelining() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let c = try RawConnection(port: registry.apiPort)
        let request = RawConnection.get("/api/models/tiny", headers: ["X-API-Key: \(Fixture.publishable)"], close: false)
        c.send(request + request)
        for _ in 0..<2 {
            let (head, _) = c.readHead()
            #expect(head?.status == 200)
            #expect(head?.header("Connection") == "keep-alive")
            let length = Int(head?.header("Content-Length") ?? "") ?? -1
            let (body, end) = c.readBody(count: length)
            #expect(end == nil)
            #expect(JSON.object(Data(body))?["modelId"] as? String == "tiny")
        }
        c.send(RawConnection.get("/api/models", headers: ["X-API-Key: \(Fixture.publishable)"], close: true))
        let (head, _) = c.readHead()
        #expect(head?.header("Connection") == "close")
        let (_, end) = c.readToEnd()
        #expect(end == .closed)
        #expect(registry.requestLog().count == 3)
    }

    @Test("a TLS handshake on the plain-http port is answered 400 at once (the client's TLS library then says the server does not speak TLS), not after a timeout")
    func tlsHandshake() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let c = try RawConnection(port: registry.apiPort)
        // The first bytes of a ClientHello: handshake record (0x16), TLS 1.0 record version, a length; no line end ever comes.
        c.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03])
        let (head, _) = c.readHead()
        #expect(head?.status == 400)
        #expect(c.readToEnd().end == .closed)
    }

    @Test("an oversize head is answered 431 and the connection closed")
    func oversizeHead() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let c = try RawConnection(port: registry.apiPort)
        c.send("GET /api/models HTTP/1.1\r\nHost: h\r\nX-Big: " + String(repeating: "a", count: 20_000) + "\r\n\r\n")
        let (head, _) = c.readHead()
        #expect(head?.status == 431)
        #expect(c.readToEnd().end == .closed)
    }

    @Test("a garbage request line is answered 400 with the error body")
    func garbage() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let c = try RawConnection(port: registry.storagePort)
        c.send("HELLO\r\n\r\n")
        let (head, _) = c.readHead()
        #expect(head?.status == 400)
        let (body, _) = c.readToEnd()
        #expect(JSON.errorCode(Data(body)) == "bad_request")
    }

    @Test("a client hanging up mid-download neither kills the process (SIGPIPE) nor the server", .requires(.curl))
    func hangUpMidBody() throws {
        var catalog = Fixture.catalog()
        catalog.add(model: RegistryModel(modelId: "big", version: "1", artifact: .generated(size: 8 << 20, seed: 4)))
        let registry = try Fixture.start(catalog)
        defer { registry.stop() }
        let url = try #require(registry.signedDownloadURL(modelId: "big"))
        for _ in 0..<3 {
            let c = try RawConnection(port: registry.storagePort, receiveBuffer: 64 << 10)
            c.send(RawConnection.get(pathAndQuery(url.absoluteString)))
            #expect(c.readHead().head?.status == 200)
            _ = c.readBody(count: 1000)
        } // each connection closes here with most of the body unsent
        let result = try Curl.run([url.absoluteString])
        #expect(result.exitCode == 0)
        #expect(result.body.count == 8 << 20)
    }

    @Test("stop() closes every socket, ends stalled responses, and is idempotent")
    func stopClosesEverything() throws {
        let registry = try Fixture.start()
        let url = try #require(registry.signedDownloadURL(modelId: Fixture.tiny))
        registry.setFault(.stall(), modelId: Fixture.tiny, endpoint: .storage)
        let stalled = try RawConnection(port: registry.storagePort, timeout: 10)
        stalled.send(RawConnection.get(pathAndQuery(url.absoluteString)))
        #expect(stalled.readHead().head?.status == 200)
        let idle = try RawConnection(port: registry.apiPort, timeout: 10)
        registry.stop()
        registry.stop()
        #expect(stalled.readToEnd().end != .timedOut)
        idle.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(idle.readToEnd().body.isEmpty)
        #expect(!LoopbackPort.accepts(registry.apiPort))
        #expect(!LoopbackPort.accepts(registry.storagePort))
    }

    @Test("a non-loopback host is refused unless allowRemote is set")
    func loopbackOnly() {
        var configuration = RegistryConfiguration()
        configuration.host = "0.0.0.0"
        #expect(throws: RegistryStartError.self) { try Fixture.start(configuration: configuration) }
    }
}
#endif

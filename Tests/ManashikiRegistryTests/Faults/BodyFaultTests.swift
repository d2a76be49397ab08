#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
@testable import ManashikiRegistry

@Suite("Body faults on the storage origin")
struct BodyFaultTests {
    /// A started registry, a signed URL for `tiny` and its bytes.
    static func setUp(_ fault: RegistryFault) throws -> (DevelopmentRegistry, String, [UInt8]) {
        let registry = try Fixture.start()
        let url = try #require(registry.signedDownloadURL(modelId: Fixture.tiny))
        registry.setFault(fault, modelId: Fixture.tiny, endpoint: .storage)
        return (registry, pathAndQuery(url.absoluteString), [UInt8](registry.artifactBytes(modelId: Fixture.tiny)!))
    }

    @Test("a truncated body with the full Content-Length ends early (curl: partial file)", .requires(.curl))
    func truncatedWithLength() throws {
        let (registry, target, bytes) = try Self.setUp(.truncatedBody(keepBytes: 1000, count: 2))
        defer { registry.stop() }
        let c = try RawConnection(port: registry.storagePort)
        c.send(RawConnection.get(target))
        let (head, _) = c.readHead()
        #expect(head?.header("Content-Length") == String(bytes.count))
        let (body, end) = c.readToEnd()
        #expect(body == Array(bytes[0..<1000]))
        #expect(end == .closed)
        let curl = try Curl.run([registry.storageBaseURL.absoluteString + target])
        #expect(curl.exitCode == 18)
        #expect(curl.body.count == 1000)
    }

    @Test("a truncated body without Content-Length is close-delimited and short")
    func truncatedWithoutLength() throws {
        let (registry, target, bytes) = try Self.setUp(.truncatedBody(declareLength: false, count: 1))
        defer { registry.stop() }
        let c = try RawConnection(port: registry.storagePort)
        c.send(RawConnection.get(target))
        let (head, _) = c.readHead()
        #expect(head?.status == 200)
        #expect(head?.header("Content-Length") == nil)
        #expect(head?.header("Connection") == "close")
        let (body, end) = c.readToEnd()
        #expect(body == Array(bytes[0..<(bytes.count / 2)]))
        #expect(end == .closed)
    }

    @Test("a corrupted byte keeps the length but changes exactly that byte", .requires(.curl))
    func corruptByte() throws {
        let (registry, target, bytes) = try Self.setUp(.corruptByte(offset: 12_345, count: 1))
        defer { registry.stop() }
        let curl = try Curl.run([registry.storageBaseURL.absoluteString + target])
        #expect(curl.exitCode == 0)
        let body = [UInt8](curl.body)
        #expect(body.count == bytes.count)
        let differing = (0..<bytes.count).filter { body[$0] != bytes[$0] }
        #expect(differing == [12_345])
        #expect(body[12_345] == bytes[12_345] ^ 0xFF)
    }

    @Test("extra bytes follow the real body, declared or close-delimited")
    func extraBytes() throws {
        let (registry, target, bytes) = try Self.setUp(.extraBytes(100, declareLength: true, count: 1))
        defer { registry.stop() }
        let c = try RawConnection(port: registry.storagePort)
        c.send(RawConnection.get(target))
        let (head, _) = c.readHead()
        #expect(head?.header("Content-Length") == String(bytes.count + 100))
        let (body, _) = c.readToEnd()
        #expect(body.count == bytes.count + 100)
        #expect(Array(body[0..<bytes.count]) == bytes)
        registry.setFault(.extraBytes(5, count: 1), modelId: Fixture.tiny, endpoint: .storage)
        let undeclared = try RawConnection(port: registry.storagePort)
        undeclared.send(RawConnection.get(target))
        let (head2, _) = undeclared.readHead()
        #expect(head2?.header("Content-Length") == nil)
        let (body2, end2) = undeclared.readToEnd()
        #expect(body2.count == bytes.count + 5)
        #expect(end2 == .closed)
    }

    @Test("an endless body keeps coming past the declared size until the client hangs up")
    func endlessBody() throws {
        let (registry, target, bytes) = try Self.setUp(.extraBytes(nil, count: 1))
        defer { registry.stop() }
        let c = try RawConnection(port: registry.storagePort)
        c.send(RawConnection.get(target))
        _ = c.readHead()
        let limit = bytes.count + (1 << 20)
        let (body, end) = c.readToEnd(limit: limit)
        #expect(end == .limitReached)
        #expect(body.count >= limit)
        #expect(Array(body[0..<bytes.count]) == bytes)
    }

    @Test("no Content-Length: chunked framing decodes to the bytes; close-delimited ends with the connection", .requires(.curl))
    func noContentLength() throws {
        let (registry, target, bytes) = try Self.setUp(.noContentLength(chunked: true, count: 1))
        defer { registry.stop() }
        let c = try RawConnection(port: registry.storagePort)
        c.send(RawConnection.get(target))
        let (head, _) = c.readHead()
        #expect(head?.header("Transfer-Encoding") == "chunked")
        #expect(head?.header("Content-Length") == nil)
        #expect(c.readChunked() == bytes)
        registry.setFault(.noContentLength(chunked: false, count: 1), modelId: Fixture.tiny, endpoint: .storage)
        let curl = try Curl.run([registry.storageBaseURL.absoluteString + target])
        #expect(curl.exitCode == 0)
        #expect(curl.header("Content-Length") == nil)
        #expect(curl.header("Transfer-Encoding") == nil)
        #expect([UInt8](curl.body) == bytes)
    }

    @Test("a slow drip still delivers every byte", .requires(.curl))
    func slowDrip() throws {
        let (registry, target, bytes) = try Self.setUp(.slowDrip(chunkBytes: 16 << 10, intervalMilliseconds: 5, count: 1))
        defer { registry.stop() }
        let curl = try Curl.run([registry.storageBaseURL.absoluteString + target])
        #expect(curl.exitCode == 0)
        #expect([UInt8](curl.body) == bytes)
        #expect(registry.faults.isEmpty)
    }

    @Test("headers then silence: the head arrives, then no body byte until the client gives up")
    func stall() throws {
        let (registry, target, bytes) = try Self.setUp(.stall(count: 1))
        defer { registry.stop() }
        let c = try RawConnection(port: registry.storagePort, timeout: 0.3)
        c.send(RawConnection.get(target))
        let (head, _) = c.readHead()
        #expect(head?.status == 200)
        #expect(head?.header("Content-Length") == String(bytes.count))
        let (body, end) = c.readToEnd()
        #expect(body.isEmpty)
        #expect(end == .timedOut)
        #expect(registry.openDownloads == 1)
    }

    @Test("a reset after some body bytes: curl reports a receive failure", .requires(.curl))
    func resetMidBody() throws {
        let (registry, target, bytes) = try Self.setUp(.connectionReset(afterBytes: 4096, count: 1))
        defer { registry.stop() }
        let c = try RawConnection(port: registry.storagePort)
        c.send(RawConnection.get(target))
        let (head, _) = c.readHead()
        #expect(head?.header("Content-Length") == String(bytes.count))
        let (body, end) = c.readToEnd()
        #expect(body.count <= 4096)
        #expect(Array(body) == Array(bytes[0..<body.count]))
        #expect(end == .reset || end == .closed)
        registry.setFault(.connectionReset(afterBytes: 4096, count: 1), modelId: Fixture.tiny, endpoint: .storage)
        let curl = try Curl.run([registry.storageBaseURL.absoluteString + target])
        #expect(curl.exitCode == 56 || curl.exitCode == 18)
    }

    @Test("ignoring Range answers 200 with the whole body", .requires(.curl))
    func ignoreRange() throws {
        let (registry, target, bytes) = try Self.setUp(.ignoreRange(count: 1))
        defer { registry.stop() }
        let ignored = try Curl.run(["-H", "Range: bytes=100-", registry.storageBaseURL.absoluteString + target])
        #expect(ignored.status == 200)
        #expect(ignored.header("Content-Range") == nil)
        #expect([UInt8](ignored.body) == bytes)
        let honoured = try Curl.run(["-H", "Range: bytes=100-", registry.storageBaseURL.absoluteString + target])
        #expect(honoured.status == 206)
    }

    @Test("body faults also damage API answers: a truncated JSON catalog", .requires(.curl))
    func truncatedJSON() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        registry.setFault(.truncatedBody(keepBytes: 10, count: 1), endpoint: .catalog)
        let curl = try Curl.run(["-H", "X-API-Key: \(Fixture.publishable)", registry.api("/api/models").absoluteString])
        #expect(curl.exitCode == 18)
        #expect(curl.body.count == 10)
        #expect(JSON.object(curl.body) == nil)
    }
}
#endif

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
@testable import ManashikiRegistry

@Suite("Faults in GET /api/download")
struct DownloadFaultTests {
    static func download(_ registry: DevelopmentRegistry) throws -> [String: Any] {
        let result = try Curl.run(["-H", "X-API-Key: \(Fixture.publishable)", registry.api("/api/download/tiny").absoluteString])
        #expect(result.status == 200)
        return try #require(JSON.object(result.body))
    }

    @Test("already-expired URLs: the storage origin answers 403, or 410 for the gone variant", .requires(.curl))
    func expiredURLs() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        for status in [403, 410] {
            registry.setFault(.expiredURL(status: status, count: 1), modelId: Fixture.tiny, endpoint: .download)
            let url = try #require(Self.download(registry)["downloadUrl"] as? String)
            let blob = try Curl.run([url])
            #expect(blob.status == status)
            #expect(JSON.errorCode(blob.body) == (status == 410 ? "url_gone" : "url_expired"))
        }
        let fresh = try #require(Self.download(registry)["downloadUrl"] as? String)
        #expect(try Curl.run([fresh]).status == 200)
        registry.setFault(.expiredURL(status: 410, count: 1), modelId: Fixture.tiny, endpoint: .storage)
        #expect(try Curl.run([fresh]).status == 410)
        #expect(try Curl.run([fresh]).status == 200)
    }

    @Test("a wrong digest, an absent digest and a null digest", .requires(.curl))
    func digests() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        let real = registry.sha256(modelId: Fixture.tiny)
        registry.setFault(.wrongDigest(count: 1), modelId: Fixture.tiny, endpoint: .download)
        let wrong = try Self.download(registry)
        #expect(JSON.isLowerHex64(wrong["sha256"]))
        #expect(wrong["sha256"] as? String != real)
        registry.setFault(.missingDigest(count: 1), modelId: Fixture.tiny, endpoint: .download)
        let absent = try Self.download(registry)
        #expect(absent.keys.contains("sha256") == false)
        #expect(absent["downloadUrl"] is String)
        registry.setFault(.missingDigest(asNull: true, count: 1), modelId: Fixture.tiny, endpoint: .download)
        let null = try Self.download(registry)
        #expect(null["sha256"] is NSNull)
        #expect(try Self.download(registry)["sha256"] as? String == real)
    }

    @Test("download URLs rewritten to file:, to plain http on a remote host, or to another loopback origin", .requires(.curl))
    func rewrittenURLs() throws {
        let registry = try Fixture.start()
        defer { registry.stop() }
        registry.setFault(.downloadURL(.file, count: 1), modelId: Fixture.tiny, endpoint: .download)
        #expect((try Self.download(registry)["downloadUrl"] as? String)?.hasPrefix("file:///") == true)
        registry.setFault(.downloadURL(.remoteHTTP, count: 1), modelId: Fixture.tiny, endpoint: .download)
        #expect((try Self.download(registry)["downloadUrl"] as? String)?.hasPrefix("http://example.com/blobs/tiny/") == true)
        registry.setFault(.downloadURL(.otherOrigin, count: 1), modelId: Fixture.tiny, endpoint: .download)
        let other = try #require(Self.download(registry)["downloadUrl"] as? String)
        #expect(other.hasPrefix("http://localhost:\(registry.storagePort)/blobs/tiny/"))
        #expect(try Curl.run([other]).body == registry.artifactBytes(modelId: Fixture.tiny))
    }
}
#endif

import Foundation
import Testing
@testable import Manashiki
import ManashikiCore
import ManashikiRegistry
import ManashikiTestSupport

/// `ArtifactDownloader`, the engine's one entrance, used with no `ManashikiClient` and no key:
/// a location's signer sees every request as it is sent, an expired URL is refreshed through
/// the location, and without a refresh a 403 is final. Real loopback HTTP (the development
/// registry's storage origin, its signed URLs made by the test).
@Suite("ArtifactDownloader")
struct ArtifactDownloaderTests {
    static let size = 20 << 20 | 4321

    static func expected(_ f: RegistryFixture, size: Int = size) -> ExpectedArtifact {
        ExpectedArtifact(sha256: f.registry.sha256(modelId: "tiny"), size: Int64(size), version: "1.0.0")
    }

    /// Three connections once ranges are served, through a limiter slow enough (16 MiB/s) that
    /// they join mid-transfer.
    static func options(connections: Int = 3) -> DownloadOptions {
        var options = DownloadOptions()
        options.rateLimiter = BandwidthLimiter(bytesPerSecond: 16 << 20)
        options.parallelThreshold = 1 << 20
        options.fixedConnections = connections
        options.resumeBackoff = 0.05
        return options
    }

    @Test("a signer is called for every request with its final URL and Range, and what it adds is what the storage host gets")
    func signsEveryRequest() async throws {
        let f = try RegistryFixture(size: Self.size)
        let url = try #require(f.registry.signedDownloadURL(modelId: "tiny"))
        let signed = Locked<[String]>([])
        let location = ArtifactLocation(url: url, sign: { request in
            var r = request
            let range = request.headers["Range"] ?? "-"
            r.headers["X-Test-Signature"] = "\(request.method) \(request.url.path) \(range)"
            signed.withLock { $0.append(range) }
            return r
        })
        let model = try await ArtifactDownloader(transport: DefaultTransport())
            .download("tiny", from: location, expecting: Self.expected(f), into: StorageDirectory(url: f.storage.url), options: Self.options())
        #expect(model.verified && model.sha256 == f.registry.sha256(modelId: "tiny") && model.version == "1.0.0")
        #expect(try Data(contentsOf: f.installed) == f.registry.artifactBytes(modelId: "tiny"))
        let requests = f.registry.requestLog().filter { $0.origin == .storage }
        #expect(requests.count >= 2 && requests.count == signed.current.count, "\(signed.current)")
        for r in requests {
            #expect(r.header("X-Test-Signature") == "GET \(url.path) \(r.header("Range") ?? "-")")
            #expect(r.header("X-API-Key") == nil && r.header("Authorization") == nil)
        }
        #expect(f.registry.storageBytesServed == Int64(Self.size))
    }

    @Test("a URL the storage host refuses (403) is refreshed through the location once, shared by every part, and no byte is fetched again")
    func refreshesThroughTheLocation() async throws {
        // 5 parts for 2 connections: each makes requests after the fault is armed.
        let size = 40 << 20 | 4321
        let f = try RegistryFixture(size: size)
        // The registry's `epoch` query item, as `/api/download` adds it: the fault expires the
        // URLs of older epochs; the refreshed URL is of a later one.
        let registry = f.registry
        let url = { @Sendable (epoch: Int) in URL(string: (registry.signedDownloadURL(modelId: "tiny")?.absoluteString ?? "") + "&epoch=\(epoch)")! }
        let refreshes = Locked<[Int]>([])
        let location = ArtifactLocation(url: url(0), refresh: { status in
            refreshes.withLock { $0.append(status) }
            return url(1000)
        })
        let armed = Locked(false)
        let model = try await ArtifactDownloader(transport: DefaultTransport())
            .download("tiny", from: location, expecting: Self.expected(f, size: size), into: StorageDirectory(url: f.storage.url),
                      options: Self.options(connections: 2)) { written, _ in
                guard written >= 4 << 20, !armed.withLock({ a in defer { a = true }; return a }) else { return }
                registry.setFault(.expireMidBody(afterBytes: 1 << 20, count: 1), modelId: "tiny", endpoint: .storage)
            }
        #expect(model.verified)
        #expect(f.registry.faults.isEmpty) // the fault was answered
        #expect(refreshes.current == [403])
        #expect(f.registry.storageBytesServed == Int64(size))
        #expect(f.keptPartials.isEmpty && f.leftovers.isEmpty)
    }

    @Test("without a refresh, a 403 from the storage host is final: nothing is installed, and the error names the status")
    func noRefreshIsFinal() async throws {
        let f = try RegistryFixture(size: Self.size)
        f.registry.setFault(.expiredURL(status: 403), modelId: "tiny", endpoint: .storage)
        let url = try #require(f.registry.signedDownloadURL(modelId: "tiny"))
        do {
            _ = try await ArtifactDownloader(transport: DefaultTransport())
                .download("tiny", from: ArtifactLocation(url: url), expecting: Self.expected(f), into: StorageDirectory(url: f.storage.url))
            Issue.record("the download succeeded")
        } catch {
            guard case .unexpectedStatus(403, _)? = error as? APIError else { Issue.record("\(error)"); return }
        }
        #expect(!FileManager.default.fileExists(atPath: f.installed.path))
    }
}

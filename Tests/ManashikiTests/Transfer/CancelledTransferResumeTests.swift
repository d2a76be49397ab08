import Foundation
import Testing
@testable import Manashiki
import ManashikiCore
import ManashikiRegistry
import ManashikiTestSupport

/// A cancelled `downloadModel` keeps every byte it wrote (it checkpoints on its way out), and
/// the next call is served exactly the rest: `size − kept`, `kept` measured from the partial
/// file's bytes, the development registry's byte counter the judge (issue #34).
@Suite("A cancelled download resumes exactly")
struct CancelledTransferResumeTests {
    static let size = 64 << 20 | 999

    /// How the link behaves.
    enum Link: String, CaseIterable, Sendable {
        /// One stream (`maxConnections` 1) at 12.5 MiB/s per request.
        case oneStream
        /// Up to 4 connections at 12.5 MiB/s each (a CDN's per-request limit).
        case perRequestLimit
        /// The default options over a link capped at 12 MiB/s for all connections together,
        /// which one stream fills (the controller tries a second connection and goes back).
        case capped
    }

    static func options(_ link: Link) -> DownloadOptions {
        var options = DownloadOptions()
        switch link {
        case .oneStream: options.maxConnections = 1
        case .perRequestLimit: options.maxConnections = 4
        case .capped: options.rateLimiter = BandwidthLimiter(bytesPerSecond: 12 << 20)
        }
        if link != .capped { options.parallelThreshold = 1 << 20 }
        options.resumeBackoff = 0.05
        return options
    }

    /// Progress reports: never backwards.
    static func isMonotonic(_ values: [Int64]) -> Bool { zip(values, values.dropFirst()).allSatisfy { $0 <= $1 } }

    @Test("cancelled mid-transfer, one stream, parallel parts and a capped link: every written byte is kept, the next call is served exactly size − kept, and both calls' progress never goes back, the second's from kept to the total",
          arguments: Link.allCases)
    func cancelThenResume(_ link: Link) async throws {
        let f = try RegistryFixture(size: Self.size)
        // 12.5 MiB/s per request, so parallel parts are worth adding and the cancellation lands mid-transfer.
        if link != .capped {
            f.registry.setFault(.slowDrip(chunkBytes: 128 << 10, intervalMilliseconds: 10), modelId: "tiny", endpoint: .storage)
        }
        let client = try f.client()
        let first = Locked<[Int64]>([])
        let options = Self.options(link)
        let task = Task { try await client.downloadModel("tiny", session: nil, expecting: nil, options: options) { w, _ in first.withLock { $0.append(w) } } }
        for _ in 0..<6000 where (first.current.last ?? 0) < Int64(Self.size) * 2 / 5 { try await Task.sleep(nanoseconds: 5_000_000) }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        for _ in 0..<6000 where f.registry.openDownloads > 0 { try await Task.sleep(nanoseconds: 5_000_000) }
        #expect(Self.isMonotonic(first.current))
        let artifact = try #require(f.registry.artifactBytes(modelId: "tiny"))
        let contents = try #require(PartialContents.of(f.storage.url, artifact: artifact))
        #expect(contents.recordedIsWritten)
        #expect(contents.recorded == contents.onDisk, "\(contents.onDisk) bytes on disk, \(contents.recorded) kept")
        #expect(contents.recorded >= Int64(Self.size) * 2 / 5 - (4 << 20), "\(contents)")

        f.registry.clearFaults()
        let before = f.registry.storageBytesServed
        let second = Locked<[Int64]>([])
        let model = try await f.client().downloadModel("tiny", session: nil, expecting: nil, options: options) { w, _ in second.withLock { $0.append(w) } }
        for _ in 0..<6000 where f.registry.openDownloads > 0 { try await Task.sleep(nanoseconds: 5_000_000) }
        let served = f.registry.storageBytesServed - before
        #expect(served == Int64(Self.size) - contents.recorded, "served \(served) with \(contents.recorded) kept")
        #expect(model.verified && model.resumedFrom == contents.recorded)
        #expect(second.current.first == contents.recorded && second.current.last == Int64(Self.size), "\(second.current.prefix(3)) … \(second.current.suffix(3))")
        #expect(Self.isMonotonic(second.current))
        #expect(try Data(contentsOf: f.installed) == f.registry.artifactBytes(modelId: "tiny"))
        #expect(f.keptPartials.isEmpty && f.leftovers.isEmpty)
    }
}

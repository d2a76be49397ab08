import Foundation
import Testing
@testable import Manashiki
import ManashikiCore
import ManashikiRegistry
import ManashikiTestSupport

/// Parallel ranged transfers against the development registry over real loopback HTTP: the
/// parts each connection asked for (the registry's request log), the bytes it served (its byte
/// counter), and the fallbacks when the storage host misbehaves in the middle of them.
@Suite("Parallel ranged transfers")
struct ParallelTransferTests {
    static let size = 32 << 20 | 777
    static let part: Int64 = 8 << 20

    /// Four connections once a 206 shows ranges are served, for any artifact over 1 MiB,
    /// through a shared limiter slow enough (12 MiB/s) that the connections join mid-transfer.
    static func options(connections: Int = 4) -> DownloadOptions {
        var options = DownloadOptions()
        options.parallelThreshold = 1 << 20
        options.maxConnections = connections
        options.fixedConnections = connections
        options.rateLimiter = BandwidthLimiter(bytesPerSecond: 12 << 20)
        options.resumeBackoff = 0.05
        return options
    }

    /// The storage requests' `Range` headers, in order (`-` when none).
    static func ranges(_ f: RegistryFixture) -> [String] {
        f.registry.requestLog().filter { $0.origin == .storage }.sorted { $0.sequence < $1.sequence }.map { $0.header("Range") ?? "-" }
    }

    /// The first byte a `Range` header asks for (0 for none).
    static func start(_ range: String) -> Int64 {
        guard range.hasPrefix("bytes=") else { return 0 }
        return Int64(range.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)[0]) ?? -1
    }

    /// The bytes a bounded `Range` header asks for.
    static func bounds(_ range: String) -> Range<Int64>? {
        guard range.hasPrefix("bytes=") else { return nil }
        let ends = range.dropFirst(6).split(separator: "-").compactMap { Int64($0) }
        return ends.count == 2 ? ends[0]..<(ends[1] + 1) : nil
    }

    /// The artifact of the tests that arm a fault mid-transfer: 6 parts for 2 connections, so
    /// each makes several requests after the fault is armed, however the machine's load
    /// orders the first ones.
    static let armedSize = 48 << 20 | 333

    /// Arms `fault` once the transfer has written `after` bytes (the connections have joined).
    static func arm(_ f: RegistryFixture, _ fault: RegistryFault, after: Int64 = 2 << 20) -> @Sendable (Int64, Int64?) -> Void {
        let armed = Locked(false)
        let registry = f.registry
        return { written, _ in
            guard written >= after, !armed.withLock({ a in defer { a = true }; return a }) else { return }
            registry.setFault(fault, modelId: "tiny", endpoint: .storage)
        }
    }

    func expectInstalled(_ f: RegistryFixture, _ model: DownloadedModel, size: Int = Self.size) throws {
        #expect(model.verified && model.size == Int64(size))
        #expect(try Data(contentsOf: f.installed) == f.registry.artifactBytes(modelId: "tiny"))
        #expect(f.leftovers.isEmpty)
        #expect(f.storageRequestsAreClean)
    }

    @Test("several connections fetch disjoint ranges drawn from one limiter; the artifact is hashed in order and installed verified")
    func parallelParts() async throws {
        let f = try RegistryFixture(size: Self.size)
        var options = Self.options()
        // A clock that advances only by the limiter's waits: it reaches (size − burst) ÷ rate
        // only if every byte of every part was drawn from this one limiter.
        let virtual = Locked<UInt64>(0)
        options.rateLimiter = BandwidthLimiter(bytesPerSecond: 12 << 20, burstBytes: 1 << 20, clock: .init(
            now: { virtual.current }, sleep: { n in virtual.withLock { $0 += n }; try await Task.sleep(nanoseconds: n) }))
        let model = try await f.client().downloadModel("tiny", session: nil, expecting: nil, options: options)
        try expectInstalled(f, model)
        // Bounded parts on the grid, from several connections, covering the artifact exactly once.
        let ranges = Self.ranges(f)
        #expect(ranges.first == "bytes=0-\(Self.part - 1)", "\(ranges)")
        let parts = ranges.compactMap(Self.bounds)
        #expect(parts.count == ranges.count && parts.count == 5, "\(ranges)")
        #expect(parts.allSatisfy { $0.lowerBound % Self.part == 0 })
        #expect(ByteRangeSet(parts).ranges == [0..<Int64(Self.size)] && parts.reduce(0) { $0 + $1.count } == Self.size)
        #expect(f.registry.storageBytesServed == Int64(Self.size))
        #expect(f.registry.maxConcurrentDownloads >= 2)
        #expect(virtual.current >= UInt64(Double(Self.size - (1 << 20)) / Double(12 << 20) * 1e9))
    }

    @Test("a storage host that ignores Range: one stream from byte 0, verified")
    func ignoresRange() async throws {
        let f = try RegistryFixture(size: Self.size)
        f.registry.setFault(.ignoreRange(), modelId: "tiny", endpoint: .storage)
        let model = try await f.client().downloadModel("tiny", session: nil, expecting: nil, options: Self.options())
        try expectInstalled(f, model)
        #expect(Self.ranges(f) == ["bytes=0-\(Self.part - 1)"])
        #expect(f.registry.storageBytesServed == Int64(Self.size))
    }

    @Test("the object replaced under the transfer (another ETag): starts over once from byte 0 and installs the verified artifact")
    func replacedObject() async throws {
        let f = try RegistryFixture(size: Self.size)
        f.registry.setFault(.replacedObject(count: 1), modelId: "tiny", endpoint: .storage)
        let model = try await f.client().downloadModel("tiny", session: nil, expecting: nil, options: Self.options())
        try expectInstalled(f, model)
        #expect(model.resumedFrom == 0)
        let fromZero = Self.ranges(f).filter { Self.start($0) == 0 }
        #expect(fromZero.count == 2, "\(Self.ranges(f))")
    }

    @Test("a 416 for a part in the middle: the transfer starts over once and installs the verified artifact")
    func unsatisfiableRange() async throws {
        let f = try RegistryFixture(size: Self.armedSize)
        let model = try await f.client().downloadModel("tiny", session: nil, expecting: nil, options: Self.options(connections: 2),
                                                       progress: Self.arm(f, .status(416, count: 1)))
        try expectInstalled(f, model, size: Self.armedSize)
        #expect(f.registry.faults.isEmpty) // the 416 was answered
        #expect(Self.ranges(f).filter { Self.start($0) == 0 }.count == 2, "\(Self.ranges(f))")
    }

    @Test("a part cut short is fetched again from where it stopped, not from its start")
    func shortPart() async throws {
        let f = try RegistryFixture(size: Self.armedSize)
        let model = try await f.client().downloadModel("tiny", session: nil, expecting: nil, options: Self.options(connections: 2),
                                                       progress: Self.arm(f, .truncatedBody(keepBytes: 1 << 20, count: 1)))
        try expectInstalled(f, model, size: Self.armedSize)
        #expect(f.registry.faults.isEmpty)
        let starts = Self.ranges(f).map(Self.start)
        #expect(starts.contains { $0 % Self.part == 1 << 20 }, "\(Self.ranges(f))")
        #expect(f.registry.storageBytesServed == Int64(Self.armedSize))
    }

    @Test("a signed URL that expires in the middle of the parts is resolved again once for all of them, and no byte is fetched again")
    func expiryMidPart() async throws {
        let f = try RegistryFixture(size: Self.armedSize)
        let model = try await f.client().downloadModel("tiny", session: nil, expecting: nil, options: Self.options(connections: 2),
                                                       progress: Self.arm(f, .expireMidBody(afterBytes: 1 << 20, count: 1)))
        try expectInstalled(f, model, size: Self.armedSize)
        #expect(f.registry.faults.isEmpty)
        let tickets = f.registry.requestLog().filter { $0.origin == .api && $0.path.hasPrefix("/api/download/") }
        #expect(tickets.count == 2)
        #expect(f.registry.storageBytesServed == Int64(Self.armedSize))
    }

    @Test("a final digest that does not match: the bytes are discarded, nothing is installed, and the cost is reported")
    func mismatchedDigest() async throws {
        let f = try RegistryFixture(size: Self.size)
        let previous = try await f.installFirstCopy()
        f.registry.setFault(.corruptByte(), modelId: "tiny", endpoint: .storage)
        var options = Self.options()
        let discarded = Locked<[Int64]>([])
        options.onDiscard = { bytes, fetched in discarded.withLock { $0 += [bytes, fetched] } }
        await #expect(throws: APIError.self) {
            _ = try await f.client().downloadModel("tiny", session: nil, expecting: nil, options: options)
        }
        #expect(discarded.current == [Int64(Self.size), Int64(Self.size)])
        #expect(try f.previousIsIntact(previous))
        #expect(f.leftovers.isEmpty && f.keptPartials.isEmpty)
    }

    @Test("concurrent downloads sharing a connection budget never open more connections together than it allows")
    func connectionBudget() async throws {
        let f = try RegistryFixture(size: Self.size)
        var options = Self.options()
        options.connectionBudget = ConnectionBudget(limit: 3)
        let otherStore = ScratchDirectory("other-store")
        defer { otherStore.remove() }
        let other = try ManashikiClient(apiKey: RegistryFixture.publicKey, baseURL: f.registry.apiBaseURL, storageDirectory: otherStore.url)
        let run = options, mine = try f.client()
        async let a = mine.downloadModel("tiny", session: nil, expecting: nil, options: run)
        async let b = other.downloadModel("tiny", session: nil, expecting: nil, options: run)
        let (first, second) = try await (a, b)
        #expect(first.verified && second.verified)
        // Each download's first connection, and one extra between them: 3, although each
        // would open 4 on its own (the budget refused the others), and all given back.
        #expect(options.connectionBudget?.peak == 3)
        #expect(Self.ranges(f).count == 10) // 5 parts each, every one requested once
        #expect(options.connectionBudget?.inUse == 0)
    }
}

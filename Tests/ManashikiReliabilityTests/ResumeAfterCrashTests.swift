#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
import Manashiki
import ManashikiRegistry
import ManashikiTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Interrupted downloads cost at most the bytes in flight (issue #34): after `kill -9` or
/// `SIGTERM` of the real binary at any moment, the next run is served at most `size − kept + in
/// flight`, where `kept` is what the partial file holds of the artifact (compared byte by byte,
/// never read from the SDK's own records) and in flight is nothing for one stream (everything it
/// wrote is kept) and at most one part per connection that was running for parallel parts. The
/// development registry's byte counter is the judge.
@Suite("Reliability: resume after crashes", .serialized)
struct ResumeAfterCrashTests {
    /// The policies of a one-stream run and of a parallel one (four connections at most, for
    /// any artifact over 1 MiB).
    static let oneStream = #"{"checkCompatibility": false, "retry": {"maxAttempts": 1}, "transfer": {"maxConnections": 1}}"#
    static let parallel = #"{"checkCompatibility": false, "retry": {"maxAttempts": 1}, "transfer": {"maxConnections": 4, "parallelThresholdBytes": 1048576}}"#
    /// The part size of a parallel transfer of the artifacts here (`ArtifactTransfer.partSize`).
    static let part: Int64 = 8 << 20

    /// What one interrupted run left, measured after it ended.
    struct Interruption {
        var served: Int64
        var connections: Int
        var contents: PartialContents
    }

    /// Starts `sync`, lets bytes flow for a random 0.3–1.5 s after its first storage request,
    /// sends `signal` and waits until the process and its connections are gone; nil when the
    /// run finished first (it is then the last run).
    static func interrupt(_ f: SyncFixture, with signal: Int32, generator: inout some RandomNumberGenerator) async throws -> Interruption? {
        let before = f.registry.storageBytesServed
        f.registry.resetDownloadStatistics()
        let running = try f.start(["sync", "--json"])
        // Watched from a thread of its own: a busy cooperative pool (tests running meanwhile)
        // cannot push the signal past the end of the transfer.
        let delay = Double(Int.random(in: 300...1500, using: &generator)) / 1000
        _ = await running.send(signal, when: { f.registry.openDownloads > 0 }, delay: delay)
        let ended = await running.finish(timeout: 30)
        let connections = f.registry.maxConcurrentDownloads // every connection that ran, an upper bound of those running at the signal
        for _ in 0..<1000 where f.registry.openDownloads > 0 { try await Task.sleep(for: .milliseconds(10)) }
        if f.isInstalledIntact("beta") { return nil }
        #expect(ended.signalled || ended.status == 143, "\(ended.all)")
        let contents = try #require(PartialContents.of(f.store, artifact: f.expected("beta")), "no partial kept: \(ended.all)")
        return Interruption(served: f.registry.storageBytesServed - before, connections: max(1, connections), contents: contents)
    }

    /// Interrupts `sync` up to `times` times, checking what each interruption kept, then runs it
    /// to the end: the run that finishes must be served exactly the bytes that were not kept.
    static func interruptThenFinish(policies: String, signal: Int32, times: Int, size: Int, seed: UInt64,
                                    inFlight: (Interruption) -> Int64) async throws {
        let f = try SyncFixture(models: ["beta"], policies: policies)
        try f.registry.publish(modelId: "beta", version: "2.0.0", artifact: .generated(size: size, seed: seed))
        // 12.5 MiB/s per request: slow enough for every interruption to land mid-transfer, fast
        // enough for parallel parts to be worth adding.
        f.registry.setFault(.slowDrip(chunkBytes: 128 << 10, intervalMilliseconds: 10), modelId: "beta", endpoint: .storage)
        var generator = SystemRandomNumberGenerator()
        var kept: Int64 = 0, interruptions = 0, keptRanges: [Range<Int64>] = []
        var served = f.registry.storageBytesServed
        for _ in 0..<times {
            let before = f.registry.storageBytesServed, logged = f.registry.requestLog().last?.sequence ?? -1
            let outcome = try await interrupt(f, with: signal, generator: &generator)
            // This run, interrupted or not, never asked for a byte the run before it kept.
            let refetched = Self.requested(f, since: logged, size: Int64(size)).filter { r in keptRanges.contains { $0.overlaps(r) } }
            #expect(refetched.isEmpty, "asked again for kept bytes: \(refetched) (kept: \(keptRanges))")
            guard let i = outcome else {
                served = f.registry.storageBytesServed - before
                break
            }
            interruptions += 1
            #expect(i.contents.recordedIsWritten, "the sidecar names bytes that were never written")
            #expect(i.contents.onDisk - i.contents.recorded <= inFlight(i),
                    "\(i.contents.onDisk) bytes on disk but only \(i.contents.recorded) kept, with \(i.connections) connection(s) running")
            kept = i.contents.recorded
            keptRanges = i.contents.recordedRanges
        }
        #expect(interruptions >= 2, "only \(interruptions) interruptions landed mid-transfer")
        f.registry.clearFaults()
        var resumedFrom: Int64 = kept
        if !f.isInstalledIntact("beta") {
            let before = f.registry.storageBytesServed, logged = f.registry.requestLog().last?.sequence ?? -1
            let final = try await f.run(["sync", "--json"], timeout: 120)
            #expect(final.status == 0, "\(final.all)")
            for _ in 0..<1000 where f.registry.openDownloads > 0 { try await Task.sleep(for: .milliseconds(10)) }
            served = f.registry.storageBytesServed - before
            let refetched = Self.requested(f, since: logged, size: Int64(size)).filter { r in keptRanges.contains { $0.overlaps(r) } }
            #expect(refetched.isEmpty, "the last run asked again for kept bytes: \(refetched) (kept: \(keptRanges))")
            resumedFrom = (final.summaryModel("beta")?["resumedFrom"] as? Int).map(Int64.init) ?? 0
        }
        #expect(f.isInstalledIntact("beta"))
        #expect(served == Int64(size) - kept, "the last run was served \(served) bytes of \(size) with \(kept) kept")
        #expect(resumedFrom == kept)
        #expect(PartialFolder.names(in: f.store).isEmpty, "\(PartialFolder.names(in: f.store))")
    }

    /// The byte ranges of the storage requests logged after sequence number `since` (a
    /// request without `Range` asks for the whole artifact).
    static func requested(_ f: SyncFixture, since: Int, size: Int64) -> [Range<Int64>] {
        f.registry.requestLog().filter { $0.sequence > since && $0.origin == .storage && $0.method == "GET" }.map { request in
            guard let value = request.header("Range"), value.hasPrefix("bytes=") else { return 0..<size }
            let bounds = value.dropFirst(6).split(separator: "-", omittingEmptySubsequences: false)
            let start = Int64(bounds.first ?? "") ?? 0
            let end = bounds.count > 1 ? Int64(bounds[1]).map { $0 + 1 } ?? size : size
            return start..<min(max(start, end), size)
        }
    }

    @Test("kill -9 of one stream at random moments, 8 times, then a normal run: every byte written is kept, and the last run is served exactly size − kept")
    func killNineOneStream() async throws {
        try await Self.interruptThenFinish(policies: Self.oneStream, signal: SIGKILL, times: 8, size: 48 << 20 | 4321, seed: 77) { _ in 0 }
    }

    @Test("kill -9 of parallel parts at random moments, 8 times, then a normal run: at most one part per running connection is lost, and the last run is served exactly size − kept")
    func killNineParallel() async throws {
        try await Self.interruptThenFinish(policies: Self.parallel, signal: SIGKILL, times: 8, size: 96 << 20 | 4321, seed: 78) { i in
            Int64(i.connections) * Self.part
        }
    }

    @Test("SIGTERM, one stream and parallel parts: every byte written is kept, and the next run is served exactly size − kept", arguments: [false, true])
    func sigterm(parallel: Bool) async throws {
        try await Self.interruptThenFinish(policies: parallel ? Self.parallel : Self.oneStream, signal: SIGTERM, times: 2,
                                           size: 64 << 20 | 4321, seed: parallel ? 80 : 79) { _ in 0 }
    }

    @Test("policies.downloadTimeoutSeconds stops a stalled transfer (retries included) long before the stall detector, naming the real limit")
    func deadlineHoldsDuringStall() async throws {
        let f = try SyncFixture(models: ["beta"], policies: #"{"checkCompatibility": false, "retry": {"maxAttempts": 4}, "downloadTimeoutSeconds": 2}"#)
        f.registry.setFault(.stall(afterBytes: 1000), modelId: "beta", endpoint: .storage)
        let result = try await f.run(["sync"], timeout: 90)
        #expect(result.status != 0)
        // The deadline's own message, never the stall detector's (60 s per attempt): no timing
        // of the run, which a loaded machine stretches.
        #expect(result.stderr.contains("within the 2 s allowed"), "\(result.stderr)")
        #expect(f.installed("beta") == nil && Invariants.partials(f.store).isEmpty)
    }
}
#endif

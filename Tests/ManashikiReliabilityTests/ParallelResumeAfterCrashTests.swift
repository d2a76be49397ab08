#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
import Manashiki
import ManashikiRegistry
import ManashikiTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A parallel transfer killed with `kill -9` keeps the parts it recorded: the next run fetches
/// only the bytes that are missing (the development registry's byte counter), verifies and installs.
@Suite("Reliability: resume of a parallel transfer after kill -9", .serialized)
struct ParallelResumeAfterCrashTests {
    @Test("kill -9 in the middle of a parallel transfer, then a normal run: only the missing bytes are fetched, verified")
    func killNineMidParallel() async throws {
        let f = try SyncFixture(models: ["beta"], policies: #"{"checkCompatibility": false, "retry": {"maxAttempts": 1}, "transfer": {"parallelThresholdBytes": 1048576}}"#)
        let size = 48 << 20
        try f.registry.publish(modelId: "beta", version: "2.0.0", artifact: .generated(size: size, seed: 78))
        // Per-connection throttling as a CDN does it (64 KiB every 40 ms on each connection)
        // for the first two requests, so the transfer adds a connection; every later request
        // (each connection's next part) stalls after 2 MiB (the rule for every model applies
        // once the model's own is spent). The transfer then stands still with parts written
        // out of order, however slowly this test runs, until the kill.
        f.registry.setFault(.slowDrip(chunkBytes: 64 << 10, intervalMilliseconds: 40, count: 2), modelId: "beta", endpoint: .storage)
        f.registry.setFault(.stall(afterBytes: 2 << 20), endpoint: .storage)
        let running = try f.start(["sync", "--json"])
        var recorded: PartialSidecar?
        for _ in 0..<1800 where recorded == nil {
            recorded = PartialFolder.kept(in: f.store).map(\.sidecar).first { !$0.partRanges.isEmpty }
            if recorded == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        running.send(SIGKILL)
        let killed = await running.finish(timeout: 10)
        let sidecar = try #require(recorded, "no sidecar recorded parts: \(killed.all)")
        #expect(killed.signalled)
        for _ in 0..<500 where f.registry.openDownloads > 0 { try await Task.sleep(for: .milliseconds(10)) }
        let kept = sidecar.bytesKnownGood + sidecar.partRanges.reduce(Int64(0)) { $0 + Int64($1.count) }
        #expect(kept > 0 && kept < Int64(size))

        f.registry.clearFaults()
        let before = f.registry.storageBytesServed
        let final = try await f.run(["sync", "--json"], timeout: 120)
        #expect(final.status == 0, "\(final.all)")
        #expect(f.isInstalledIntact("beta"))
        for _ in 0..<500 where f.registry.openDownloads > 0 { try await Task.sleep(for: .milliseconds(10)) }
        let resumed = try #require(final.summaryModel("beta")?["resumedFrom"] as? Int, "\(final.all)")
        // At least what the sidecar had recorded when the kill was sent (a checkpoint may have
        // followed), and the rerun fetched exactly the rest: not one byte twice.
        #expect(Int64(resumed) >= kept)
        #expect(f.registry.storageBytesServed - before == Int64(size - resumed))
        #expect(PartialFolder.names(in: f.store).isEmpty, "\(PartialFolder.names(in: f.store))")
    }
}
#endif

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
import Manashiki
import ManashikiRegistry
import ManashikiTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Interrupted downloads cost at most the bytes in flight: `kill -9` of the real binary keeps
/// the partial for the next run, and the development registry's own byte counter proves it.
@Suite("Reliability: resume after crashes", .serialized)
struct ResumeAfterCrashTests {
    @Test("kill -9 at random points during a large download, 20 times, then a normal run: verified, served bytes < 1.3 × size + 8 MiB per kill")
    func killNineResumes() async throws {
        let f = try SyncFixture(models: ["beta"])
        let size = 24 << 20
        try f.registry.publish(modelId: "beta", version: "2.0.0", artifact: .generated(size: size, seed: 77))
        var generator = SystemRandomNumberGenerator()
        var kills = 0
        for _ in 0..<20 {
            // Each run gets a random 0.25–2 MiB more, then the storage host stalls: the kill
            // lands mid-transfer however slowly this test runs.
            f.registry.setFault(.stall(afterBytes: Int.random(in: (256 << 10)...(2 << 20), using: &generator)), modelId: "beta", endpoint: .storage)
            let running = try f.start()
            _ = await running.wait(timeout: 20) { f.registry.openDownloads > 0 }
            try await Task.sleep(for: .milliseconds(Int.random(in: 50...300, using: &generator)))
            running.send(SIGKILL)
            let killed = await running.finish(timeout: 10)
            if killed.signalled { kills += 1 }
            if killed.status == 0 && !killed.signalled { break } // finished before the kill
            for _ in 0..<500 where f.registry.openDownloads > 0 { try await Task.sleep(for: .milliseconds(10)) }
            // A partial killed before its sidecar was written (the first 4 MiB) is left for the
            // next run to remove; the final run below must leave nothing.
        }
        f.registry.clearFaults()
        let final = try await f.run(["sync", "--json"], timeout: 60)
        #expect(final.status == 0, "\(final.all)")
        #expect(f.isInstalledIntact("beta"))
        for _ in 0..<500 where f.registry.openDownloads > 0 { try await Task.sleep(for: .milliseconds(10)) }
        let served = f.registry.storageBytesServed
        let budget = Int64(Double(size) * 1.3) + Int64(kills) * (8 << 20)
        #expect(kills >= 5, "only \(kills) kills landed")
        #expect(served < budget, "served \(served) bytes for a \(size)-byte file over \(kills) kills (budget \(budget))")
        #expect(PartialFolder.names(in: f.store).isEmpty, "\(PartialFolder.names(in: f.store))")
        #expect(final.stdout.contains(#""bytesReused""#))
    }

    @Test("policies.downloadTimeoutSeconds stops a stalled transfer (retries included) long before the stall detector, naming the real limit")
    func deadlineHoldsDuringStall() async throws {
        let f = try SyncFixture(models: ["beta"], policies: #"{"checkCompatibility": false, "retry": {"maxAttempts": 4}, "downloadTimeoutSeconds": 2}"#)
        f.registry.setFault(.stall(afterBytes: 1000), modelId: "beta", endpoint: .storage)
        let started = Date()
        let result = try await f.run(["sync"], timeout: 90)
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status != 0)
        #expect(result.stderr.contains("within the 2 s allowed"), "\(result.stderr)")
        // The stall detector alone would take 60 s per attempt (~66 s with resumes); generous bound.
        #expect(elapsed < 30, "took \(elapsed) s")
        #expect(f.installed("beta") == nil && Invariants.partials(f.store).isEmpty)
    }
}
#endif

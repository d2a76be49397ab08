import Foundation
import Testing
import ManashikiRegistry
#if canImport(Glibc)
import Glibc
#endif

@Suite("signals (built binary)")
struct SignalTrapTests {
    /// How long a test waits for the child's output. Generous: at the start of a full parallel
    /// run on a loaded two-core machine, waiting tasks can get no time for tens of seconds.
    static let patience: Double = 90

    /// Starts a sync whose `beta` download drips slowly (128 KiB at 1 KiB every 0.5 s: longer
    /// than the test can be starved, so it is still under way when the signal comes), and waits
    /// until it has started.
    static func startSlowSync(_ fixture: Fixture, extra: [String] = []) async throws -> CLI.Running {
        fixture.registry.setFault(.slowDrip(chunkBytes: 1024, intervalMilliseconds: 500), modelId: "beta", endpoint: .storage)
        let running = try fixture.start(["sync", "--json"] + extra)
        // A progress line for beta that is not its last: the download is under way.
        let started = await running.waitForOutput(timeout: patience) { text in
            text.split(separator: "\n").contains { line in
                line.contains(#""type":"model.progress""#) && line.contains(#""modelId":"beta""#) && !line.contains(#""bytesWritten":131072"#)
            }
        }
        #expect(started)
        return running
    }

    @Test("SIGINT during a download cancels it cleanly: exit 130, no partial file left")
    func interrupt() async throws {
        let fixture = try Fixture()
        let running = try await Self.startSlowSync(fixture)
        running.send(SIGINT)
        let result = await running.finish(timeout: Self.patience)
        #expect(result.status == 130)
        #expect(fixture.installed("beta") == nil)
        let partial = fixture.store.appendingPathComponent(".manashiki/partial")
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: partial.path)) ?? []
        #expect(leftovers.isEmpty)
        #expect(result.summary()["outcome"] as? String == "cancelled")
    }

    @Test("SIGTERM during a download exits 143")
    func terminate() async throws {
        let fixture = try Fixture()
        let running = try await Self.startSlowSync(fixture)
        running.send(SIGTERM)
        let result = await running.finish(timeout: Self.patience)
        #expect(result.status == 143)
    }

    @Test("loop mode: SIGTERM while waiting for the next run exits 0")
    func loopStops() async throws {
        let fixture = try Fixture()
        let running = try fixture.start(["sync", "--every", "1h", "--jitter", "1m", "--json"])
        let ran = await running.waitForOutput(timeout: Self.patience) { $0.contains(#""type":"summary""#) }
        #expect(ran)
        running.send(SIGTERM)
        let result = await running.finish(timeout: Self.patience)
        #expect(result.status == 0)
        #expect(fixture.isInstalledIntact("alpha"))
    }
}

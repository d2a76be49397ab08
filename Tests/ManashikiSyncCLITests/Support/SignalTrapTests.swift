import Foundation
import Testing
import ManashikiRegistry
#if canImport(Glibc)
import Glibc
#endif

@Suite("signals (built binary)")
struct SignalTrapTests {
    /// Starts a sync whose `beta` download drips slowly, and waits until it has started.
    static func startSlowSync(_ fixture: Fixture, extra: [String] = []) async throws -> CLI.Running {
        // 128 KiB at 1 KiB per 250 ms: half a minute, so the download is still in flight when a
        // starved test task gets to send its signal (the test itself ends at the signal).
        fixture.registry.setFault(.slowDrip(chunkBytes: 1024, intervalMilliseconds: 250), modelId: "beta", endpoint: .storage)
        let running = try fixture.start(["sync", "--json"] + extra)
        // A progress line for beta that is not its last: the download is under way.
        let started = await running.waitForOutput { text in
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
        let result = await running.finish()
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
        let result = await running.finish()
        #expect(result.status == 143)
    }

    @Test("loop mode: SIGTERM while waiting for the next run exits 0")
    func loopStops() async throws {
        let fixture = try Fixture()
        let running = try fixture.start(["sync", "--every", "1h", "--jitter", "1m", "--json"])
        let ran = await running.waitForOutput { $0.contains(#""type":"summary""#) }
        #expect(ran)
        running.send(SIGTERM)
        let result = await running.finish()
        #expect(result.status == 0)
        #expect(fixture.isInstalledIntact("alpha"))
    }
}

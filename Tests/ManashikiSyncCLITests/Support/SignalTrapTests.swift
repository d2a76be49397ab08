import Foundation
import Testing
import ManashikiTestSupport
import ManashikiRegistry
import ManashikiSyncCLI
#if canImport(Glibc)
import Glibc
#endif

@Suite("signals (built binary)")
struct SignalTrapTests {
    /// Starts a sync whose `beta` download drips slowly and sends `signal` once it is under way
    /// (a progress line for beta that is not its last) and the other models are done (on a
    /// loaded machine, alpha could still be in flight at beta's first progress line, and be
    /// kept as a second partial).
    static func interruptSlowSync(_ fixture: Fixture, with signal: Int32) async throws -> ChildResult {
        // 128 KiB at 1 KiB per 250 ms: half a minute, so the download is still in flight when the
        // signal goes out (the test itself ends at the signal).
        fixture.registry.setFault(.slowDrip(chunkBytes: 1024, intervalMilliseconds: 250), modelId: "beta", endpoint: .storage)
        let running = try fixture.start(["sync", "--json"])
        let started = await running.send(signal) { text in
            let lines = text.split(separator: "\n")
            func ids(_ type: String) -> Set<String> {
                Set(lines.filter { $0.contains(#""type":"\#(type)""#) }.compactMap { line in
                    line.range(of: #""modelId":"[^"]+""#, options: .regularExpression).map { String(line[$0].dropFirst(11).dropLast()) }
                })
            }
            let othersDone = ids("model.started").subtracting(["beta"]).isSubset(of: ids("model.finished"))
            return othersDone && lines.contains { line in
                line.contains(#""type":"model.progress""#) && line.contains(#""modelId":"beta""#) && !line.contains(#""bytesWritten":131072"#)
            }
        }
        #expect(started)
        return await running.finish()
    }

    @Test("SIGINT during a download cancels it cleanly: exit 130, the partial kept with its sidecar for the next run, no stray file")
    func interrupt() async throws {
        let fixture = try Fixture()
        let result = try await Self.interruptSlowSync(fixture, with: SIGINT)
        #expect(result.status == 130)
        #expect(fixture.installed("beta") == nil)
        #expect(PartialFolder.strays(in: fixture.store).isEmpty)
        let kept = PartialFolder.kept(in: fixture.store)
        #expect(kept.count == 1 && kept.first?.sidecar.modelId == "beta" && (kept.first?.bytes ?? 0) > 0)
        #expect(result.summary()["outcome"] as? String == "cancelled")

        // The next run says, as it happens, that it continues the kept bytes.
        fixture.registry.clearFaults()
        let keptBytes = try #require(kept.first).bytes
        let next = try await fixture.run(["sync", "--json"])
        #expect(next.status == 0)
        let resumed = next.jsonLines().filter { $0["type"] as? String == "model.resumed" }
        #expect(resumed.count == 1)
        #expect(resumed.first?["modelId"] as? String == "beta")
        #expect((resumed.first?["bytesKept"] as? NSNumber)?.int64Value == keptBytes)
        let beta = (next.summary()["models"] as? [[String: Any]])?.first { $0["modelId"] as? String == "beta" }
        #expect((beta?["resumedFrom"] as? NSNumber)?.int64Value == keptBytes)
        // What each source sent this run adds up to what was downloaded: the kept bytes are
        // counted once, as reused.
        let summary = next.summary()
        let downloaded = (summary["bytesDownloaded"] as? NSNumber)?.int64Value
        let bySource = (summary["bytesBySource"] as? [String: NSNumber])?.values.reduce(Int64(0)) { $0 + $1.int64Value }
        #expect(downloaded != nil && bySource == downloaded, "\(summary)")
        #expect((summary["bytesReused"] as? NSNumber)?.int64Value == keptBytes)
        #expect(fixture.installed("beta") != nil && PartialFolder.kept(in: fixture.store).isEmpty)
    }

    @Test("plain output says a download resumes, with the bytes kept")
    func resumeLine() async throws {
        let fixture = try Fixture()
        _ = try await Self.interruptSlowSync(fixture, with: SIGINT)
        let kept = try #require(PartialFolder.kept(in: fixture.store).first).bytes
        fixture.registry.clearFaults()
        let next = try await fixture.run(["sync"])
        #expect(next.status == 0)
        let line = next.stdoutLines.first { $0.hasPrefix("beta: resuming: ") }
        #expect(line?.contains("kept from an interrupted download") == true, "\(next.stdout)")
        #expect(line?.contains(ByteFormat.bytes(kept)) == true, "\(line ?? "")")
    }

    @Test("SIGTERM during a download exits 143")
    func terminate() async throws {
        let fixture = try Fixture()
        let result = try await Self.interruptSlowSync(fixture, with: SIGTERM)
        #expect(result.status == 143)
    }

    @Test("a stop during a download (systemctl stop, a pod's grace period) is one stderr line saying what was kept, not an error per model")
    func terminateIsOneLine() async throws {
        let fixture = try Fixture()
        let result = try await Self.interruptSlowSync(fixture, with: SIGTERM)
        #expect(result.status == 143)
        #expect(!result.stderrLines.contains { $0.hasPrefix("manashiki-sync: error:") }, "\(result.stderr)")
        let interrupted = result.stderrLines.filter { $0.hasPrefix("manashiki-sync: interrupted:") }
        #expect(interrupted.count == 1, "\(result.stderr)")
        #expect(interrupted.first?.contains("kept for the next run") == true)
    }

    @Test("loop mode: SIGTERM while waiting for the next run exits 0")
    func loopStops() async throws {
        let fixture = try Fixture()
        let running = try fixture.start(["sync", "--every", "1h", "--jitter", "1m", "--json"])
        let ran = await running.send(SIGTERM) { $0.contains(#""type":"summary""#) }
        #expect(ran)
        let result = await running.finish()
        #expect(result.status == 0)
        #expect(fixture.isInstalledIntact("alpha"))
    }
}

#if os(Linux) // GNU time (MeasuredRun)
import Foundation
import ManashikiTestSupport
import Testing
import Manashiki
#if canImport(Glibc)
import Glibc
#endif

/// A registry, a mirror and an answer crafted by an attacker or broken by a proxy, against the
/// built `manashiki-sync` under `/usr/bin/time` (docs/reliability.md, "Hostile input"): every
/// document has a deadline and a minimum rate (`policies.documents`), so no run hangs; each ends
/// by an exit status, never a signal, within what the limits promise (generous bounds).
@Suite("Reliability: a hostile server", .requires(.gnuTime))
struct HostileNetworkTests {
    /// Short limits so the tests are short: 1 KiB/s over 2 s, 20 s in all, one attempt.
    static let policies = #"{"checkCompatibility": false, "retry": {"maxAttempts": 1}, "documents": {"timeoutSeconds": 20, "minBytesPerSecond": 1024, "rateWindowSeconds": 2}}"#
    static let jsonHead = Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n".utf8)
    /// `{"models": [` then a space every 500 ms: 2 bytes a second, for ever.
    static let drip: [ScriptStep] = [.send(jsonHead + Data(#"{"models": ["#.utf8)), .drip(chunk: Data(" ".utf8), intervalMilliseconds: 500, limit: 1 << 20)]

    @Test("a catalog dripped at 2 bytes a second: the run fails naming the limit (exit 1), within the document deadline")
    func catalogDrip() async throws {
        let f = try ScriptedSync()
        try f.writeManifest(models: ["alpha"], policies: Self.policies)
        f.registry.setOverride { request, _ in request.path == "/api/models" ? Self.drip : nil }
        let run = try await f.measured()
        #expect(run.signal == nil && !run.result.signalled)
        #expect(run.result.status == 1, "\(run.result.all)")
        #expect(run.result.stderr.contains("arrived too slowly") && run.result.stderr.contains("policies.documents"), "\(run.result.stderr)")
        #expect(f.installed("alpha") == nil)
    }

    @Test("a record that never finishes (fast enough for the rate, never ending): cut at the deadline, the run ends by status")
    func recordDeadline() async throws {
        let f = try ScriptedSync()
        try f.writeManifest(models: ["alpha"], policies: #"{"checkCompatibility": false, "retry": {"maxAttempts": 1}, "documents": {"timeoutSeconds": 4, "minBytesPerSecond": 1024, "rateWindowSeconds": 1}}"#)
        f.registry.setOverride { request, _ in
            request.path == "/api/models/alpha"
                ? [.send(Self.jsonHead + Data("{".utf8)), .drip(chunk: Data(repeating: 0x20, count: 8192), intervalMilliseconds: 250, limit: 8 << 20)]
                : nil
        }
        let run = try await f.measured()
        #expect(run.signal == nil)
        #expect(run.result.status != 0, "\(run.result.all)")
        #expect(run.result.all.contains("did not finish arriving within 4 s"), "\(run.result.all)")
    }

    @Test("a mirror whose index.json drips is not used this run (one warning naming it); the registry serves the models")
    func mirrorIndexDrip() async throws {
        let f = try ScriptedSync()
        let mirror = try ScriptedOrigin { _ in Self.drip }
        try f.writeManifest(models: ["alpha", "beta"], policies: Self.policies, topLevel: #""sources": [{"mirror": "\#(mirror.baseURL.absoluteString)"}],"#)
        let run = try await f.measured()
        #expect(run.signal == nil)
        #expect(run.result.status == 0, "\(run.result.all)")
        #expect(run.result.all.contains("arrived too slowly") && run.result.all.contains("not used this run"), "\(run.result.all)")
        #expect(f.isInstalledIntact("alpha") && f.isInstalledIntact("beta"))
    }

    @Test("a catalog declaring a terabyte (Content-Length) is refused on its head: nothing like it is read or held")
    func declaredTerabyte() async throws {
        let f = try ScriptedSync()
        try f.writeManifest(models: ["alpha"], policies: Self.policies)
        let head = Data("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1099511627776\r\nConnection: close\r\n\r\n".utf8)
        f.registry.setOverride { request, _ in
            request.path == "/api/models" ? [.send(head), .endless(chunk: Data(repeating: 0x20, count: 65536), limit: 256 << 20)] : nil
        }
        let run = try await f.measured()
        #expect(run.signal == nil)
        #expect(run.result.status == 1, "\(run.result.all)")
        #expect(run.result.all.contains("declares 1.00 TiB"), "\(run.result.all)")
        #expect(run.maxRSSMiB < 200, "peak RSS \(run.maxRSSMiB) MiB")
    }

    @Test("SIGTERM while the catalog drips (default limits, so it would last a minute): exit 143 at once, the store's lock released")
    func sigtermWhileDripping() async throws {
        let f = try ScriptedSync()
        try f.writeManifest(models: ["alpha"])
        f.registry.setOverride { request, _ in request.path == "/api/models" ? Self.drip : nil }
        let running = try f.start(["sync"])
        let asked = await running.send(SIGTERM, when: { f.registry.requests.contains { $0.path == "/api/models" } })
        #expect(asked)
        let result = await running.finish(timeout: 60)
        #expect(!result.signalled && result.status == 143, "\(result.all)")
        // The lock went with the process: the next run proceeds (and, served properly, installs).
        f.registry.setOverride(nil)
        let next = try await f.run(["sync"])
        #expect(next.status == 0, "\(next.all)")
        #expect(f.isInstalledIntact("alpha"))
    }
}
#endif

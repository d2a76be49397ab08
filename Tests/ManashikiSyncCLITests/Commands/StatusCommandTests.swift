import Foundation
import Testing
import ManashikiTestSupport
#if canImport(Glibc)
import Glibc
#endif

@Suite("status (built binary)")
struct StatusCommandTests {
    @Test("status lists installed models, versions, sizes and the last sync")
    func text() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync"]).status == 0)
        let result = try await fixture.run(["status"], environment: [:])
        #expect(result.status == 0)
        #expect(result.stdoutLines.contains { $0.hasPrefix("alpha") && $0.contains("1.0.0") && $0.contains("64.0 KiB") && $0.contains("ok") })
        #expect(result.stdoutLines.contains { $0.hasPrefix("beta") && $0.contains("2.1.0") })
        #expect(result.stdoutLines.contains { $0.hasPrefix("Last sync: ") && $0.contains("changed") })
        #expect(!hasControlCharacters(result.all))
    }

    @Test("status --json is one summary object with models and the last run")
    func json() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync"]).status == 0)
        let result = try await fixture.run(["status", "--json"], environment: [:])
        #expect(result.status == 0)
        #expect(result.stdoutLines.count == 1)
        let summary = result.summary()
        #expect(summary["schema"] as? String == "manashiki-sync/v1")
        let models = try #require(summary["models"] as? [[String: Any]])
        #expect(models.compactMap { $0["modelId"] as? String } == ["alpha", "beta"])
        #expect(models.allSatisfy { $0["file"] as? String == "ok" })
        let lastRun = try #require(summary["lastRun"] as? [String: Any])
        #expect(lastRun["outcome"] as? String == "changed")
        #expect(summary["installedBytes"] as? Int == (64 + 128) << 10)
    }

    @Test("status on a store that was never synced says so and exits 0")
    func never() async throws {
        let fixture = try Fixture()
        let result = try await fixture.run(["status"], environment: [:])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Last sync: never"))
        #expect(result.stdoutLines.contains { $0.hasPrefix("alpha") && $0.contains("not-installed") })
    }

    @Test("status shows the partial a SIGINT kept: model, bytes kept and age in text and in the --json partials array")
    func keptPartial() async throws {
        let fixture = try Fixture()
        #expect(try await SignalTrapTests.interruptSlowSync(fixture, with: SIGINT).status == 130)
        let kept = PartialFolder.kept(in: fixture.store)
        let bytes = try #require(kept.first?.bytes)
        let json = try await fixture.run(["status", "--json"], environment: [:])
        #expect(json.status == 0)
        let partials = try #require(json.summary()["partials"] as? [[String: Any]])
        #expect(partials.count == 1)
        #expect(partials.first?["modelId"] as? String == "beta")
        #expect((partials.first?["bytes"] as? Int).map(Int64.init) == bytes)
        #expect((partials.first?["ageSeconds"] as? Int).map { $0 >= 0 } == true)
        #expect(partials.first?["inUse"] as? Bool == false)
        let text = try await fixture.run(["status"], environment: [:])
        #expect(text.stdoutLines.contains { $0.hasPrefix("Partial: beta") && $0.contains("of 128.0 KiB kept") && $0.contains("old") })
    }
}

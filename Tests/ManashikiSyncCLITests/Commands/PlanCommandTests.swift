import Foundation
import Testing
import ManashikiRegistry

@Suite("plan (built binary against the development registry)")
struct PlanCommandTests {
    @Test("plan on an empty store lists the downloads, changes nothing and exits 10")
    func pendingChanges() async throws {
        let fixture = try Fixture()
        let result = try await fixture.run(["plan"])
        #expect(result.status == 10)
        #expect(result.stdout.contains("alpha"))
        #expect(result.stdout.contains("download"))
        #expect(result.stdout.contains("changes-pending"))
        #expect(fixture.installed("alpha") == nil)
        #expect(!hasControlCharacters(result.all))
    }

    @Test("plan after a sync exits 0 and says in-sync")
    func inSync() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync"]).status == 0)
        let result = try await fixture.run(["plan"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("in-sync"))
    }

    @Test("plan --json ends with a summary carrying the plan and exit code 10")
    func json() async throws {
        let fixture = try Fixture()
        let result = try await fixture.run(["plan", "--json"])
        #expect(result.status == 10)
        let lines = result.jsonLines()
        #expect(lines.allSatisfy { $0["schema"] as? String == "manashiki-sync/v1" })
        let summary = result.summary()
        #expect(summary["command"] as? String == "plan")
        #expect(summary["outcome"] as? String == "changes-pending")
        #expect(summary["exitCode"] as? Int == 10)
        let plan = try #require(summary["plan"] as? [String: Any])
        let items = try #require(plan["items"] as? [[String: Any]])
        #expect(items.map { $0["action"] as? String } == ["download", "download"])
        #expect(plan["bytesToFetch"] as? Int == (64 + 128) << 10)
    }

    @Test("plan exits 1 when a model is blocked (a private model without a session)")
    func blocked() async throws {
        let fixture = try Fixture(models: ["alpha"], extraModelEntries: [#"{"id": "secret", "session": {"env": "TEST_SESSION"}}"#])
        let result = try await fixture.run(["plan"])
        #expect(result.status == 1)
        #expect(result.stderrLines.contains { $0.hasPrefix("manashiki-sync: error: secret: ") && $0.contains("TEST_SESSION") })
    }
}

import Foundation
import Manashiki
import Testing
import ManashikiRegistry
import ManashikiSync
@testable import ManashikiSyncCLI

@Suite("sync (built binary against the development registry)")
struct SyncCommandTests {
    @Test("sync installs every model with the registry's bytes, in plain lines, and a re-run is a no-op")
    func installsThenNoOp() async throws {
        let fixture = try Fixture()
        let first = try await fixture.run(["sync"])
        #expect(first.status == 0)
        #expect(first.stderr.isEmpty)
        #expect(fixture.isInstalledIntact("alpha"))
        #expect(fixture.isInstalledIntact("beta"))
        #expect(first.stdoutLines.contains { $0.hasPrefix("alpha: installed 1.0.0") })
        #expect(first.stdoutLines.contains { $0.hasPrefix("beta: installed 2.1.0") })
        #expect(first.stdoutLines.last?.hasPrefix("sync: changed") == true)
        #expect(!hasControlCharacters(first.all))

        let downloads = fixture.registry.requestLog().count
        let second = try await fixture.run(["sync"])
        #expect(second.status == 0)
        #expect(second.stdoutLines.last?.hasPrefix("sync: in-sync") == true)
        #expect(!fixture.registry.requestLog().dropFirst(downloads).contains { $0.path.contains("/api/download/") })
    }

    @Test("sync --json writes NDJSON: every line parses, carries the schema, and the summary comes last")
    func json() async throws {
        let fixture = try Fixture()
        let result = try await fixture.run(["sync", "--json"])
        #expect(result.status == 0)
        let lines = result.jsonLines()
        #expect(lines.count == result.stdoutLines.count)
        #expect(lines.allSatisfy { $0["schema"] as? String == "manashiki-sync/v1" && $0["time"] is String })
        let types = lines.compactMap { $0["type"] as? String }
        #expect(types.first == "run.started")
        #expect(types.contains("plan"))
        #expect(types.filter { $0 == "model.started" }.count == 2)
        #expect(types.filter { $0 == "model.finished" }.count == 2)
        #expect(types.last == "summary")
        for progress in lines where progress["type"] as? String == "model.progress" {
            #expect(progress["bytesWritten"] is Int)
            #expect(progress["modelId"] is String)
        }
        let summary = result.summary()
        #expect(summary["outcome"] as? String == "changed")
        #expect(summary["exitCode"] as? Int == 0)
        #expect(summary["exitName"] as? String == "success")
        #expect(summary["bytesDownloaded"] as? Int == (64 + 128) << 10)
        let counts = try #require(summary["counts"] as? [String: Int])
        #expect(counts["installed"] == 2)
        let models = try #require(summary["models"] as? [[String: Any]])
        #expect(Set(models.compactMap { $0["modelId"] as? String }) == ["alpha", "beta"])
        #expect(models.allSatisfy { $0["status"] as? String == "installed" && $0["error"] is NSNull })
    }

    @Test("sync --dry-run prints the plan, downloads nothing and exits 0")
    func dryRun() async throws {
        let fixture = try Fixture()
        let result = try await fixture.run(["sync", "--dry-run"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("download"))
        #expect(fixture.installed("alpha") == nil)
        #expect(!fixture.registry.requestLog().contains { $0.path.contains("/api/download/") })
    }

    @Test("--max-rate reaches the run: -v names the limit, the downloads complete intact")
    func maxRate() async throws {
        let fixture = try Fixture()
        let result = try await fixture.run(["sync", "-v", "--max-rate", "20M"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stderr.contains("downloads limited to 20.0 MiB/s in total"), "\(result.stderr)")
        #expect(fixture.isInstalledIntact("alpha") && fixture.isInstalledIntact("beta"))
        let bad = try await fixture.run(["sync", "--max-rate", "20 M"])
        #expect(bad.status == 2 && bad.stderr.contains("--max-rate needs a rate"))
    }

    @Test("a registry fault on one model is a partial failure: exit 3, the other model installed, one stderr line")
    func partialFailure() async throws {
        let fixture = try Fixture()
        fixture.registry.setFault(.corruptByte(), modelId: "beta", endpoint: .storage)
        let result = try await fixture.run(["sync"])
        #expect(result.status == 3)
        #expect(fixture.isInstalledIntact("alpha"))
        #expect(fixture.installed("beta") == nil)
        let errors = result.stderrLines.filter { $0.hasPrefix("manashiki-sync: error: ") }
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("manashiki-sync: error: beta: ") == true)
        #expect(errors.first?.contains(" — ") == true)
        #expect(result.stdoutLines.last?.hasPrefix("sync: partial-failure") == true)
        // the state keeps what succeeded; the next run (fault gone) completes
        fixture.registry.clearFaults()
        #expect(try await fixture.run(["sync"]).status == 0)
        #expect(fixture.isInstalledIntact("beta"))
    }

    @Test("an unreachable catalog is a failure: exit 1 with the reason on stderr")
    func failure() async throws {
        let fixture = try Fixture()
        fixture.registry.setFault(.status(503), endpoint: .catalog)
        let result = try await fixture.run(["sync", "--json"])
        #expect(result.status == 1)
        #expect(result.summary()["outcome"] as? String == "failed")
        #expect(result.stderrLines.contains { $0.hasPrefix("manashiki-sync: error: ") && $0.contains("503") })
    }

    @Test("a private model without a session is blocked: exit 3, the public one installed")
    func privateWithoutSession() async throws {
        let fixture = try Fixture(models: ["alpha"], extraModelEntries: [#"{"id": "secret", "session": {"env": "TEST_SESSION"}}"#])
        let result = try await fixture.run(["sync"])
        #expect(result.status == 3)
        #expect(fixture.isInstalledIntact("alpha"))
        #expect(fixture.installed("secret") == nil)
        #expect(result.stderrLines.contains { $0.hasPrefix("manashiki-sync: error: secret: ") && $0.contains("session") })
    }

    @Test("a private model installs with a session token from the environment, and the token is never printed")
    func privateWithSession() async throws {
        let fixture = try Fixture(models: [], extraModelEntries: [#"{"id": "secret", "session": {"env": "TEST_SESSION"}}"#])
        let token = fixture.registry.issueSession(principalId: "ci")
        var env = fixture.environment
        env["TEST_SESSION"] = token
        let result = try await fixture.run(["sync", "--verbose"], environment: env)
        #expect(result.status == 0)
        #expect(fixture.isInstalledIntact("secret"))
        #expect(!result.all.contains(token))
    }

    @Test("prunes: --no-prune keeps, --max-delete 0 blocks (exit 3), a plain sync deletes")
    func prunes() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync"]).status == 0)
        try fixture.writeManifest(models: ["alpha"])

        let kept = try await fixture.run(["sync", "--no-prune"])
        #expect(kept.status == 0)
        #expect(fixture.installed("beta") != nil)

        let limited = try await fixture.run(["sync", "--max-delete", "0"])
        #expect(limited.status == 3)
        #expect(limited.stderrLines.contains { $0.contains("beta:") && $0.contains("--max-delete") })
        #expect(fixture.installed("beta") != nil)

        let pruned = try await fixture.run(["sync"])
        #expect(pruned.status == 0)
        #expect(pruned.stdoutLines.contains("beta: pruned"))
        #expect(fixture.installed("beta") == nil)
        #expect(fixture.isInstalledIntact("alpha"))
    }

    @Test("--concurrency 1 still installs everything")
    func concurrency() async throws {
        let fixture = try Fixture()
        fixture.registry.resetDownloadStatistics()
        #expect(try await fixture.run(["sync", "--concurrency", "1"]).status == 0)
        #expect(fixture.registry.maxConcurrentDownloads == 1)
        #expect(fixture.isInstalledIntact("beta"))
    }

    @Test("--progress always draws the live display with a total line and a summary table")
    func liveDisplay() async throws {
        let fixture = try Fixture()
        let result = try await fixture.run(["sync", "--progress", "always"])
        #expect(result.status == 0)
        #expect(result.stdout.contains("\u{1B}["))
        #expect(result.stdout.contains("total"))
        #expect(result.stdout.contains("MODEL"))
        #expect(result.stdout.contains("RESULT"))
    }

    @Test("NO_COLOR removes colours from the live display")
    func noColor() async throws {
        let fixture = try Fixture()
        var env = fixture.environment
        env["NO_COLOR"] = "1"
        let result = try await fixture.run(["sync", "--progress", "always"], environment: env)
        #expect(result.status == 0)
        #expect(!result.stdout.contains("\u{1B}[32m"))
        #expect(!result.stdout.contains("\u{1B}[1m"))
    }

    @Test("sync writes a last-run record that status reads")
    func lastRunRecord() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync"]).status == 0)
        let record = try #require(LastRunRecord.read(StoreLayout(directory: fixture.store)) as LastRunRecord?)
        #expect(record.outcome == "changed")
        #expect(record.exitCode == 0)
        #expect(record.counts["installed"] == 2)
    }
}

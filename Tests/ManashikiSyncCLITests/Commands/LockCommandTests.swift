import Foundation
import Manashiki
import Testing
import ManashikiRegistry
import ManashikiSync
@testable import ManashikiSyncCLI

@Suite("lock (built binary against the development registry)")
struct LockCommandTests {
    @Test("lock writes manashiki.lock.json beside the manifest with each model's exact artifact; lock --check passes")
    func writeAndCheck() async throws {
        let fixture = try Fixture()
        let result = try await fixture.run(["lock"])
        #expect(result.status == 0, "\(result.all)")
        let lockURL = fixture.directory.appendingPathComponent("manashiki.lock.json")
        let lock = try LockFile.read(lockURL)
        #expect(lock.models.map(\.modelId) == ["alpha", "beta"])
        for artifact in lock.models {
            #expect(artifact.sha256 == fixture.registry.sha256(modelId: artifact.modelId))
            #expect(artifact.size == Int64(fixture.registry.size(modelId: artifact.modelId) ?? -1))
            #expect(artifact.version == fixture.registry.version(modelId: artifact.modelId))
            #expect(artifact.record?.visibility == .public)
        }
        let text = try String(contentsOf: lockURL, encoding: .utf8)
        #expect(text.hasPrefix("{\n  \"formatVersion\" : 1"))

        let check = try await fixture.run(["lock", "--check", "--json"])
        #expect(check.status == 0, "\(check.all)")
        #expect(check.summary()["outcome"] as? String == "up-to-date")
    }

    @Test("lock --check exits 10 naming the model when the registry publishes a new version, and when the manifest changes")
    func drift() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["lock", "--quiet"]).status == 0)
        try fixture.registry.publish(modelId: "beta", version: "2.2.0", artifact: .generated(size: 100 << 10, seed: 999))
        let catalogDrift = try await fixture.run(["lock", "--check"])
        #expect(catalogDrift.status == 10)
        #expect(catalogDrift.stderr.contains("beta: the registry now serves 2.2.0"))
        #expect(!catalogDrift.stderr.contains("alpha"))

        try fixture.writeManifest(models: ["alpha"], extraModelEntries: [#"{"id": "beta", "version": "^2.2"}"#])
        let manifestDrift = try await fixture.run(["lock", "--check", "--json"])
        #expect(manifestDrift.status == 10)
        let differences = try #require(manifestDrift.summary()["differences"] as? [[String: Any]])
        #expect(differences.contains { ($0["message"] as? String)?.contains("no longer satisfies the manifest") == true })
    }

    @Test("lock refuses to write when a model cannot be resolved (exit 1), and the old lock stays")
    func unresolvable() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["lock", "--quiet"]).status == 0)
        let lockURL = fixture.directory.appendingPathComponent("manashiki.lock.json")
        let before = try Data(contentsOf: lockURL)
        try fixture.writeManifest(models: ["alpha", "nope"])
        let result = try await fixture.run(["lock"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("nope: the registry's catalog does not list this model"))
        #expect(try Data(contentsOf: lockURL) == before)
    }

    @Test("lock --check without a lock file, or with one of a future format, is exit 2 naming the file")
    func badLockFile() async throws {
        let fixture = try Fixture()
        let missing = try await fixture.run(["lock", "--check"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("manashiki.lock.json: no lock file here"))
        try Data(#"{"formatVersion": 3, "models": []}"#.utf8).write(to: fixture.directory.appendingPathComponent("manashiki.lock.json"))
        let future = try await fixture.run(["lock", "--check"])
        #expect(future.status == 2)
        #expect(future.stderr.contains("format 3 is newer"))
    }

    @Test("an optional model that cannot be locked is left out with a warning; check and sync --locked accept that")
    func optionalLeftOut() async throws {
        let fixture = try Fixture(models: ["alpha"], extraModelEntries: [#"{"id": "maybe", "optional": true}"#])
        let result = try await fixture.run(["lock"])
        #expect(result.status == 0, "\(result.all)")
        #expect(result.stderr.contains("maybe: optional, not locked"))
        let lock = try LockFile.read(fixture.directory.appendingPathComponent("manashiki.lock.json"))
        #expect(lock.models.map(\.modelId) == ["alpha"])
        #expect(try await fixture.run(["lock", "--check"]).status == 0)
        let sync = try await fixture.run(["sync", "--locked"])
        #expect(sync.status == 0, "\(sync.all)")
        #expect(fixture.isInstalledIntact("alpha"))
    }

    @Test("lock --check with the registry unreachable still exits 10 when the lock no longer matches the manifest (catalogCompared false); with a matching lock it exits 1 saying to run lock --check again")
    func checkWithoutRegistry() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["lock", "--quiet"]).status == 0)
        fixture.registry.stop()
        let unknown = try await fixture.run(["lock", "--check"])
        #expect(unknown.status == 1, "\(unknown.all)")
        #expect(unknown.stderr.contains("run `manashiki-sync lock --check` again when the registry is reachable"), "\(unknown.stderr)")
        #expect(!unknown.stderr.contains("manashiki-sync sync"))

        try fixture.writeManifest(models: ["alpha", "beta", "secret"])
        let drift = try await fixture.run(["lock", "--check", "--json"])
        #expect(drift.status == 10, "\(drift.all)")
        #expect(drift.summary()["outcome"] as? String == "out-of-date")
        #expect(drift.summary()["catalogCompared"] as? Bool == false)
        #expect(drift.stderr.contains("secret: is in the manifest but not in the lock"))
        #expect(drift.stderr.contains("only the manifest was compared with the lock"))
    }

    @Test("lock into a directory that does not exist fails (exit 1) saying to run lock again, not sync")
    func unwritableLock() async throws {
        let fixture = try Fixture()
        let target = fixture.directory.appendingPathComponent("no-such-directory/manashiki.lock.json").path
        let result = try await fixture.run(["lock", "--lock-file", target])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("\(target): cannot be written (No such file or directory)"), "\(result.stderr)")
        #expect(result.stderr.contains("run `manashiki-sync lock` again"), "\(result.stderr)")
        #expect(!result.stderr.contains("manashiki-sync sync"))
    }
}

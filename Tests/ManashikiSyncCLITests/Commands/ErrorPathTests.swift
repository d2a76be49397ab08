#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Manashiki
import Testing
import ManashikiTestSupport
import ManashikiLoopback
import ManashikiSync

@Suite("error paths (built binary): manifest, key, lock, usage")
struct ErrorPathTests {
    @Test("a registry that is not running: the error names host:port and says nothing listens there")
    func registryNotRunning() async throws {
        let fixture = try Fixture()
        let port = try LoopbackPort.free() // nothing listens there
        try TestManifest.write(to: fixture.manifestURL, baseURL: URL(string: "http://127.0.0.1:\(port)")!, store: "models", models: ["alpha"])
        let result = try await fixture.run(["sync"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("could not connect to 127.0.0.1:\(port) (connection refused or unreachable): nothing is listening there on this machine; start the server or check the port"), "\(result.stderr)")
    }

    @Test("a manifest that is not JSON exits 2 with one stderr line")
    func invalidJSON() async throws {
        let fixture = try Fixture()
        try Data("{ not json".utf8).write(to: fixture.manifestURL)
        let result = try await fixture.run(["sync"])
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderrLines.first?.hasPrefix("manashiki-sync: error: manashiki.json: ") == true)
    }

    @Test("an invalid manifest exits 2 with one line per problem, naming the JSON path")
    func invalidManifest() async throws {
        let fixture = try Fixture()
        try Data(#"{"schemaVersion": 1, "models": [{"id": "alpha", "version": "1.x"}, {"id": "Bad Id"}]}"#.utf8).write(to: fixture.manifestURL)
        let result = try await fixture.run(["plan", "--json"])
        #expect(result.status == 2)
        #expect(result.stderrLines.contains { $0.contains("models[0].version") })
        #expect(result.stderrLines.contains { $0.contains("models[1].id") })
        #expect(result.stderrLines.allSatisfy { $0.hasPrefix("manashiki-sync: error: ") })
        let summary = result.summary()
        #expect(summary["outcome"] as? String == "manifest-error")
        #expect((summary["problems"] as? [[String: Any]])?.count ?? 0 >= 2)
    }

    @Test("a missing manifest exits 2 and says how to fix it")
    func missingManifest() async throws {
        let fixture = try Fixture()
        let result = try await fixture.run(["plan", "--manifest", "nope.json"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("no manifest at"))
    }

    @Test("no key exits 2 and names MANASHIKI_API_KEY and --api-key-file")
    func missingKey() async throws {
        let fixture = try Fixture()
        let result = try await fixture.run(["sync"], environment: [:])
        #expect(result.status == 2)
        #expect(result.stderrLines.count == 1)
        #expect(result.stderr.contains("MANASHIKI_API_KEY"))
        #expect(result.stderr.contains("--api-key-file"))
    }

    @Test("a malformed key exits 2 without echoing it")
    func malformedKey() async throws {
        let fixture = try Fixture()
        let bad = "mk_pub_demo_tooShortButSecret"
        let result = try await fixture.run(["sync", "--verbose"], environment: ["MANASHIKI_API_KEY": bad])
        #expect(result.status == 2)
        #expect(result.stderr.contains("malformed"))
        #expect(!result.all.contains(bad))
    }

    @Test("a key file loses one trailing newline; a second line makes it malformed")
    func keyFile() async throws {
        let fixture = try Fixture()
        let good = fixture.directory.appendingPathComponent("key")
        try Data((Fixture.key + "\n").utf8).write(to: good)
        #expect(try await fixture.run(["sync", "--api-key-file", "key"], environment: [:]).status == 0)

        let bad = fixture.directory.appendingPathComponent("key2")
        try Data((Fixture.key + "\n\n").utf8).write(to: bad)
        let result = try await fixture.run(["plan", "--api-key-file", bad.path], environment: [:])
        #expect(result.status == 2)
        #expect(result.stderr.contains("malformed"))
        #expect(!result.all.contains(Fixture.key))
    }

    @Test("a key the registry rejects exits 1 with what to do, never the key")
    func rejectedKey() async throws {
        let fixture = try Fixture()
        let unknown = "mk_pub_demo_UnknownKey0123456789abcdef"
        let result = try await fixture.run(["sync", "--verbose"], environment: ["MANASHIKI_API_KEY": unknown])
        #expect(result.status == 1)
        #expect(result.stderr.contains("rejected the API key"))
        #expect(!result.all.contains(unknown))
    }

    @Test("--api-key is refused with the reason and the alternatives, and the value is not echoed")
    func apiKeyFlag() async throws {
        let fixture = try Fixture()
        for arguments in [["sync", "--api-key", Fixture.key], ["sync", "--api-key=\(Fixture.key)"]] {
            let result = try await fixture.run(arguments, environment: [:])
            #expect(result.status == 2)
            #expect(result.stderr.contains("ps"))
            #expect(result.stderr.contains("MANASHIKI_API_KEY"))
            #expect(result.stderr.contains("--api-key-file"))
            #expect(!result.all.contains(Fixture.key))
        }
    }

    @Test("a store locked by another process exits 75")
    func locked() async throws {
        let fixture = try Fixture()
        let lock = try #require(try await StoreLock.acquire(StoreLayout(directory: fixture.store), timeout: .zero))
        defer { lock.release() }
        for command in ["sync", "plan", "verify", "export"] {
            let result = try await fixture.run(command == "export" ? [command, "bundle", "--lock-timeout", "0"] : [command, "--lock-timeout", "0"])
            #expect(result.status == 75, "\(command)")
            // One wording in every command.
            #expect(result.stderr.contains("another run holds the lock on \(fixture.store.path) (waited 0 s); try again when it has finished"), "\(command): \(result.stderr)")
        }
        let json = try await fixture.run(["sync", "--lock-timeout", "0", "--json"])
        #expect(json.summary()["outcome"] as? String == "locked")
        #expect(json.summary()["exitCode"] as? Int == 75)
    }

    @Test("usage errors exit 2 and point at --help")
    func usage() async throws {
        let fixture = try Fixture()
        for arguments in [[], ["frobnicate"], ["sync", "--concurrency", "zero"], ["plan", "--dry-run"], ["sync", "--bogus"]] {
            let result = try await fixture.run(arguments)
            #expect(result.status == 2, "\(arguments)")
            #expect(result.stderr.contains("--help"), "\(arguments)")
            #expect(result.stdout.isEmpty, "\(arguments)")
        }
    }

    @Test("--help works for every command and --version prints the version")
    func help() async throws {
        let fixture = try Fixture()
        for arguments in [["--help"], ["plan", "--help"], ["sync", "--help"], ["verify", "--help"], ["status", "--help"], ["help", "sync"]] {
            let result = try await fixture.run(arguments, environment: [:])
            #expect(result.status == 0, "\(arguments)")
            #expect(result.stdout.contains("USAGE"), "\(arguments)")
        }
        let version = try await fixture.run(["--version"], environment: [:])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("manashiki-sync "))
    }
}
#endif

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
import ManashikiTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The messages a newcomer met first (issue 38): each says what is wrong in the command's own
/// terms, once, and what to do.
@Suite("first-hour messages (built binary)")
struct NewcomerMessagesTests {
    @Test("verify and status of a store never synced say the same: it does not exist yet, run sync; verify is no-store, exit 4, models missing")
    func neverSynced() async throws {
        let fixture = try Fixture()
        let note = "the store \(fixture.store.path) does not exist yet (never synced, or deleted): run `manashiki-sync sync` to install its models"
        let status = try await fixture.run(["status"], environment: [:])
        #expect(status.status == 0 && status.stdout.contains("Note: \(note)"), "\(status.all)")
        let verify = try await fixture.run(["verify"], environment: [:])
        #expect(verify.status == 4, "\(verify.all)")
        #expect(verify.stdout.contains("note: \(note)"), "\(verify.stdout)")
        #expect(verify.stdoutLines.last?.hasPrefix("verify: no-store — 0 ok, 0 corrupt, 2 missing") == true, "\(verify.stdout)")
        #expect(!verify.all.contains("damaged"), "\(verify.all)")
        #expect(verify.stderr.contains("alpha: missing: listed in the manifest, and the store does not exist"), "\(verify.stderr)")
        let json = try await fixture.run(["verify", "--json"], environment: [:])
        #expect(json.summary()["outcome"] as? String == "no-store" && json.summary()["stateNote"] as? String == note, "\(json.stdout)")
        #expect(!FileManager.default.fileExists(atPath: fixture.store.path))
    }

    @Test("verify --json gives the SHA-256 of every intact file, as hashed")
    func healthySha256() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync"]).status == 0)
        let files = try #require(try await fixture.run(["verify", "--json"], environment: [:]).summary()["files"] as? [[String: Any]])
        #expect(files.count == 2)
        for file in files {
            let id = try #require(file["modelId"] as? String)
            #expect(file["verdict"] as? String == "ok" && file["sha256"] as? String == fixture.registry.sha256(modelId: id), "\(file)")
        }
    }

    @Test("an API key file others may read is named in a warning with the chmod that fixes it; a 0600 one is not")
    func keyFileMode() async throws {
        let fixture = try Fixture()
        let keyFile = fixture.directory.appendingPathComponent("api-key")
        try Data((Fixture.key + "\n").utf8).write(to: keyFile)
        chmod(keyFile.path, 0o644)
        let loose = try await fixture.run(["plan", "--api-key-file", keyFile.path], environment: [:])
        #expect(loose.status == 10, "\(loose.all)")
        #expect(loose.stderr.contains("manashiki-sync: warning: the API key file \(keyFile.path) can be read by other users (mode 0644): `chmod 600 \(keyFile.path)`"),
                "\(loose.stderr)")
        chmod(keyFile.path, 0o600)
        let tight = try await fixture.run(["plan", "--api-key-file", keyFile.path], environment: [:])
        #expect(tight.status == 10 && !tight.stderr.contains("warning"), "\(tight.all)")
    }

    @Test("a metrics file that cannot be written names the metrics file and its directory, not a storage directory")
    func metricsDirectory() async throws {
        let fixture = try Fixture()
        let missing = fixture.directory.appendingPathComponent("no-such-dir/sync.prom")
        let result = try await fixture.run(["sync", "--metrics-file", missing.path])
        #expect(result.stderr.contains("the metrics file \(missing.path) could not be written (No such file or directory): check that \(missing.deletingLastPathComponent().path) exists"),
                "\(result.stderr)")
        #expect(!result.stderr.lowercased().contains("storage directory") && !result.stderr.contains("storageDirectory"), "\(result.stderr)")
    }

    @Test("an https:// base URL to the plain-http development registry: this server does not speak TLS, tried once, exit 1 (Linux: libcurl and OpenSSL)")
    func httpsToPlainHTTP() async throws {
        let fixture = try Fixture()
        let api = fixture.registry.apiBaseURL
        let https = try #require(URL(string: "https://127.0.0.1:\(api.port!)"))
        try TestManifest.write(to: fixture.manifestURL, baseURL: https, store: "models", models: ["alpha"])
        let result = try await fixture.run(["plan", "--json"])
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("127.0.0.1:\(api.port!) does not speak TLS: it answered the https request in plain text; use http:// for it"),
                "\(result.stderr)")
        let error = try #require(result.summary()["error"] as? [String: Any], "\(result.stdout)")
        #expect(error["kind"] as? String == "terminal", "\(error)")
        #expect(!result.stderr.contains("stopped sending data") && !result.stderr.contains("usually temporary"), "\(result.stderr)")
    }

    @Test("no manifest: the hint shows the smallest manifest and where every key is described, not examples/ (absent from the installed package)")
    func noManifest() async throws {
        let fixture = try Fixture()
        try FileManager.default.removeItem(at: fixture.manifestURL)
        let result = try await fixture.run(["plan"])
        #expect(result.status == 2)
        #expect(result.stderr.contains(#"pass --manifest PATH, or create one: start from the smallest manifest, {"schemaVersion": 1, "models": [{"id": "MODEL-ID"}]}"#),
                "\(result.stderr)")
        #expect(result.stderr.contains("docs/sync-agent.md#the-sync-agent-manifest") && !result.stderr.contains("examples/"), "\(result.stderr)")
    }
}
#endif

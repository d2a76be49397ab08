#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Manashiki
import Testing
import ManashikiRegistry
import ManashikiSync
@testable import ManashikiSyncCLI

/// Fleets and images with real parts on loopback: the development registry, nginx serving an
/// exported bundle, the built binary, bundle directories and lock files.
@Suite("fleets: bundles, mirrors, offline and locks (built binary, nginx, development registry)")
struct FleetTests {
    /// A fixture whose store is synced and exported to `<dir>/bundle`.
    static func exported(models: [String] = ["alpha", "beta"]) async throws -> (Fixture, URL) {
        let fixture = try Fixture(models: models)
        let sync = try await fixture.run(["sync", "--quiet"])
        #expect(sync.status == 0, "\(sync.all)")
        let export = try await fixture.run(["export", "bundle", "--quiet"], environment: [:])
        #expect(export.status == 0, "\(export.all)")
        return (fixture, fixture.directory.appendingPathComponent("bundle"))
    }

    /// A second machine: `<fixture>/<name>/manashiki.json` with its own store, same registry.
    static func secondMachine(_ fixture: Fixture, _ name: String = "second", models: [String] = ["alpha", "beta"],
                              extra: String = "", registry: String? = nil) throws -> URL {
        let dir = fixture.directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let entries = models.map { #"{"id": "\#($0)"}"# }.joined(separator: ", ")
        let text = """
        {"schemaVersion": 1,
         "registry": {"baseURL": "\(registry ?? fixture.registry.apiBaseURL.absoluteString)"},
         "store": {"directory": "models", "concurrency": 2},
         "device": {"platform": "linux"},
         "policies": {"checkCompatibility": false, "retry": {"maxAttempts": 1}},
         \(extra)
         "models": [\(entries)]}
        """
        try Data(text.utf8).write(to: dir.appendingPathComponent("manashiki.json"))
        return dir
    }

    static func installed(_ dir: URL, _ id: String) -> Data? {
        FileManager.default.contents(atPath: dir.appendingPathComponent("models/\(id).bin").path)
    }

    static func models(_ summary: [String: Any]) -> [String: [String: Any]] {
        let list = summary["models"] as? [[String: Any]] ?? []
        return Dictionary(list.compactMap { m in (m["modelId"] as? String).map { ($0, m) } }, uniquingKeysWith: { a, _ in a })
    }

    @Test("nginx serves an exported bundle: a second store syncs through it with zero bytes from the registry's storage origin, and nginx gets no credentials", .requires(.nginx))
    func mirrorServesEverything() async throws {
        let (fixture, bundle) = try await Self.exported()
        let nginx = try await NginxMirror(root: bundle)
        let second = try Self.secondMachine(fixture, extra: #""sources": [{"mirror": "\#(nginx.baseURL)"}],"#)
        let before = fixture.registry.storageBytesServed

        let result = try await CLIProcess.run(["sync", "--json"], environment: fixture.environment, in: second)
        let log = nginx.accessLog
        await nginx.stop()
        #expect(result.status == 0, "\(result.all)")
        #expect(fixture.registry.storageBytesServed == before) // not one byte from the registry's storage
        for id in ["alpha", "beta"] { #expect(Self.installed(second, id) == fixture.registry.artifactBytes(modelId: id)) }
        let summary = result.summary()
        let models = Self.models(summary)
        #expect(models["alpha"]?["source"] as? String == "mirror \(nginx.baseURL)")
        #expect(models["beta"]?["source"] as? String == "mirror \(nginx.baseURL)")
        let bySource = try #require(summary["bytesBySource"] as? [String: Int])
        #expect(bySource == ["mirror \(nginx.baseURL)": (64 + 128) << 10])
        let plan = try #require(result.jsonLines().first { $0["type"] as? String == "plan" })
        let items = try #require(plan["items"] as? [[String: Any]])
        #expect(items.allSatisfy { $0["source"] as? String == "mirror \(nginx.baseURL)" })
        let started = try #require(result.jsonLines().first { $0["type"] as? String == "run.started" })
        #expect(started["sources"] as? [String] == ["mirror \(nginx.baseURL)"])
        #expect(started["offline"] as? Bool == false && started["fallback"] as? String == "registry")
        // The mirror saw its index once and the blob requests, and never a key or an Authorization header.
        #expect(log.split(separator: "\n").count == 3, "\(log)")
        #expect(log.hasPrefix("/index.json 200 "), "\(log)")
        #expect(log.contains("/blobs/sha256/\(fixture.registry.sha256(modelId: "alpha")) 200"))
        #expect(log.split(separator: "\n").allSatisfy { $0.hasSuffix("key=- auth=-") }, "\(log)")
        #expect(!result.all.contains(Fixture.key))
    }

    @Test("a corrupted blob on the mirror is rejected and the model fetched from the registry; the rest still come from the mirror", .requires(.nginx))
    func corruptBlobFallsThrough() async throws {
        let (fixture, bundle) = try await Self.exported()
        let beta = BundleLayout(directory: bundle).blob(fixture.registry.sha256(modelId: "beta"))
        var bytes = try Data(contentsOf: beta)
        bytes[1000] ^= 0xFF
        try bytes.write(to: beta)
        let nginx = try await NginxMirror(root: bundle)
        let second = try Self.secondMachine(fixture, extra: #""sources": [{"mirror": "\#(nginx.baseURL)"}],"#)
        let before = fixture.registry.storageBytesServed

        let result = try await CLIProcess.run(["sync", "--json"], environment: fixture.environment, in: second)
        await nginx.stop()
        #expect(result.status == 0, "\(result.all)")
        #expect(Self.installed(second, "beta") == fixture.registry.artifactBytes(modelId: "beta"))
        #expect(fixture.registry.storageBytesServed - before == 128 << 10) // only beta came from the registry
        let summary = result.summary()
        #expect(Self.models(summary)["beta"]?["source"] as? String == "registry")
        #expect(Self.models(summary)["alpha"]?["source"] as? String == "mirror \(nginx.baseURL)")
        let warnings = summary["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("mirror \(nginx.baseURL) served a corrupt copy of beta") }, "\(warnings)")
        // Nothing unverified was left behind.
        let partial = second.appendingPathComponent("models/.manashiki/partial")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: partial.path)) ?? []).isEmpty)
    }

    @Test("a mirror that is down, or answers 404, falls through to the registry after one request per model", .requires(.nginx), arguments: ["down", "404"])
    func mirrorMissFallsThrough(kind: String) async throws {
        let fixture = try Fixture()
        let empty = fixture.directory.appendingPathComponent("empty-bundle")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let nginx = try await NginxMirror(root: empty)
        if kind == "down" { await nginx.stop() }
        let second = try Self.secondMachine(fixture, extra: #""sources": [{"mirror": "\#(nginx.baseURL)/bundle"}],"#)

        let result = try await CLIProcess.run(["sync", "--json"], environment: fixture.environment, in: second)
        #expect(result.status == 0, "\(result.all)")
        for id in ["alpha", "beta"] { #expect(Self.installed(second, id) == fixture.registry.artifactBytes(modelId: id)) }
        #expect(Self.models(result.summary()).values.allSatisfy { $0["source"] as? String == "registry" })
        if kind == "404" {
            let requests = nginx.accessLog.split(separator: "\n")
            // The index once, then one try per model (no index: blobs are asked for directly), no retry loop.
            #expect(requests.count == 3, "\(requests)")
            #expect(requests.first?.hasPrefix("/bundle/index.json 404") == true, "\(requests)")
            #expect(requests.allSatisfy { $0.contains(" 404 ") })
            let warnings = result.summary()["warnings"] as? [String] ?? []
            #expect(warnings.contains { $0.contains("mirror \(nginx.baseURL)/bundle has no index.json (HTTP 404)") }, "\(warnings)")
            await nginx.stop()
        }
    }

    @Test("offline sync from a bundle directory with no registry running and no key")
    func offlineFromBundle() async throws {
        let (fixture, bundle) = try await Self.exported()
        let expected = ["alpha": fixture.registry.artifactBytes(modelId: "alpha"), "beta": fixture.registry.artifactBytes(modelId: "beta")]
        fixture.registry.stop()
        let second = try Self.secondMachine(fixture, models: ["alpha", "beta"])

        let result = try await CLIProcess.run(["sync", "--offline", "--from", bundle.path, "--json"], environment: [:], in: second)
        #expect(result.status == 0, "\(result.all)")
        for id in ["alpha", "beta"] { #expect(Self.installed(second, id) == expected[id]!) }
        let summary = result.summary()
        #expect(Self.models(summary).values.allSatisfy { $0["source"] as? String == "bundle \(bundle.path)" })
        #expect(summary["bytesBySource"] as? [String: Int] == ["bundle \(bundle.path)": (64 + 128) << 10])

        // A model no bundle holds is reported on its own line; the others are in sync: exit 3.
        let third = try Self.secondMachine(fixture, "third", models: ["alpha", "gamma"])
        let partial = try await CLIProcess.run(["sync", "--offline", "--from", bundle.path], environment: [:], in: third)
        #expect(partial.status == 3, "\(partial.all)")
        #expect(Self.installed(third, "alpha") == expected["alpha"]!)
        #expect(partial.stderr.contains("gamma: offline, no bundle holds an artifact of gamma"))
    }

    @Test("a lock written today reproduces the same bytes after the registry published new versions, served from a bundle; lock --check reports the drift")
    func lockReproduces() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["lock", "--quiet"]).status == 0)
        #expect(try await fixture.run(["sync", "--locked", "--quiet"]).status == 0)
        #expect(try await fixture.run(["export", "image-bundle", "--select", "lock", "--quiet"], environment: [:]).status == 0)
        let original = try #require(fixture.installed("beta"))

        try fixture.registry.publish(modelId: "beta", version: "2.2.0", artifact: .generated(size: 100 << 10, seed: 4242))
        let check = try await fixture.run(["lock", "--check"])
        #expect(check.status == 10)
        #expect(check.stderr.contains("beta: the registry now serves 2.2.0"))

        // The image build: a fresh store, the committed lock, the bundle.
        let build = try Self.secondMachine(fixture, "image")
        try FileManager.default.copyItem(at: fixture.directory.appendingPathComponent("manashiki.lock.json"),
                                         to: build.appendingPathComponent("manashiki.lock.json"))
        let bundle = fixture.directory.appendingPathComponent("image-bundle").path
        let result = try await CLIProcess.run(["sync", "--locked", "--from", bundle, "--json"], environment: fixture.environment, in: build)
        #expect(result.status == 0, "\(result.all)")
        #expect(Self.installed(build, "beta") == original)
        #expect(Self.models(result.summary())["beta"]?["version"] as? String == "2.1.0")

        // Without the bundle, the registry no longer serves the locked beta: refused, not replaced by 2.2.0.
        let bare = try Self.secondMachine(fixture, "bare")
        try FileManager.default.copyItem(at: fixture.directory.appendingPathComponent("manashiki.lock.json"),
                                         to: bare.appendingPathComponent("manashiki.lock.json"))
        // The plan counts only what will be fetched: alpha, not the blocked beta (it counted both).
        let planned = try await CLIProcess.run(["plan", "--locked", "--json"], environment: fixture.environment, in: bare)
        #expect(planned.status == 1, "\(planned.all)")
        let plan = planned.summary()["plan"] as? [String: Any]
        #expect((plan?["bytesToFetch"] as? NSNumber)?.intValue == fixture.registry.artifactBytes(modelId: "alpha")?.count, "\(plan ?? [:])")
        let refused = try await CLIProcess.run(["sync", "--locked"], environment: fixture.environment, in: bare)
        #expect(refused.status == 3, "\(refused.all)")
        #expect(refused.stderr.contains("registry no longer serves the locked artifact"))
        // Its own advice, once; not the offline runs' "or run online" (this run is online).
        #expect(refused.stderr.components(separatedBy: "add a bundle or mirror that holds it").count == 2, "\(refused.stderr)")
        #expect(!refused.stderr.contains("run online"), "\(refused.stderr)")
        #expect(Self.installed(bare, "beta") == nil)
        #expect(Self.installed(bare, "alpha") == fixture.registry.artifactBytes(modelId: "alpha"))

        // Months later, no registry at all: the lock and the bundle are enough.
        let alpha = fixture.registry.artifactBytes(modelId: "alpha")
        fixture.registry.stop()
        let rebuild = try Self.secondMachine(fixture, "rebuild")
        try FileManager.default.copyItem(at: fixture.directory.appendingPathComponent("manashiki.lock.json"),
                                         to: rebuild.appendingPathComponent("manashiki.lock.json"))
        let offline = try await CLIProcess.run(["sync", "--locked", "--offline", "--from", bundle], environment: [:], in: rebuild)
        #expect(offline.status == 0, "\(offline.all)")
        #expect(Self.installed(rebuild, "beta") == original)
        #expect(Self.installed(rebuild, "alpha") == alpha)
    }

    @Test("sync --locked refuses a lock that does not match the manifest")
    func lockedRefusesMismatch() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["lock", "--quiet"]).status == 0)
        try fixture.writeManifest(models: ["alpha", "beta", "secret"])
        let result = try await fixture.run(["sync", "--locked"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("the lock file does not match the manifest"))
        #expect(result.stderr.contains("secret: is in the manifest but not in the lock"))
        #expect(fixture.installed("alpha") == nil)
    }

    @Test("a bundle with a missing blob, a blob whose name and content disagree, an index of a future version: the model fails naming the path, nothing unverified installed")
    func badBundles() async throws {
        let (fixture, bundleURL) = try await Self.exported()
        let bundle = BundleLayout(directory: bundleURL)
        let alphaSHA = fixture.registry.sha256(modelId: "alpha"), betaSHA = fixture.registry.sha256(modelId: "beta")
        try FileManager.default.removeItem(at: bundle.blob(alphaSHA))                 // missing blob
        try Data(repeating: 7, count: 128 << 10).write(to: bundle.blob(betaSHA))     // name and content disagree
        fixture.registry.stop()
        let second = try Self.secondMachine(fixture)
        let result = try await CLIProcess.run(["sync", "--offline", "--from", bundle.directory.path], environment: [:], in: second)
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("alpha:") && result.stderr.contains("no blobs/sha256/\(alphaSHA)"))
        #expect(result.stderr.contains("beta:") && result.stderr.contains("its blob has sha256"))
        #expect(Self.installed(second, "alpha") == nil)
        #expect(Self.installed(second, "beta") == nil)

        try Data(#"{"formatVersion": 99, "models": []}"#.utf8).write(to: bundle.indexFile)
        let future = try await CLIProcess.run(["sync", "--offline", "--from", bundle.directory.path], environment: [:], in: second)
        #expect(future.status == 1, "\(future.all)")
        #expect(future.stderr.contains("\(bundle.indexFile.path): formatVersion: bundle index format 99 is newer"))
    }

    @Test("bad sources in the manifest or on the command line are usage errors naming the path, credentials never echoed", arguments: [
        (#""sources": [{"mirror": "https://fleet:hunter2secret@cache.example/bundle"}],"#, "sources[0].mirror: https://***@cache.example/bundle contains credentials"),
        (#""sources": [{"s3": "bucket/models"}],"#, #"sources[0].s3: "bucket/models" is not an s3:// URL"#),
        (#""sources": [{"gcs": "bucket/models"}],"#, #"sources[0].gcs: unknown source kind "gcs""#),
        (#""sources": [{"mirror": "http://cache.example/bundle"}],"#, "sources[0].mirror: http://cache.example/bundle is plain http to another host"),
        (#""sources": [{"bundle": "/a", "mirror": "https://x.example"}],"#, #"sources[0]: has both "bundle" and "mirror""#),
        (#""fallback": "sometimes","#, #"fallback: must be "registry" or "none""#),
    ])
    func badSources(extra: String, expected: String) async throws {
        let fixture = try Fixture()
        let dir = try Self.secondMachine(fixture, extra: extra)
        let result = try await CLIProcess.run(["sync"], environment: fixture.environment, in: dir)
        #expect(result.status == 2)
        #expect(result.stderr.contains(expected), "\(result.stderr)")
        #expect(!result.all.contains("hunter2secret"))
        #expect(Self.installed(dir, "alpha") == nil)
    }

    @Test("--from with credentials in the URL is refused without echoing them (exit 2)")
    func fromWithCredentials() async throws {
        let fixture = try Fixture()
        let result = try await fixture.run(["sync", "--from", "https://u:topsecretpw@mirror.example/b"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("contains credentials"))
        #expect(!result.all.contains("topsecretpw"))
    }

    @Test("\"fallback\": \"none\" never downloads from the registry: a model no source holds fails naming the sources tried")
    func fallbackNone() async throws {
        let (fixture, bundle) = try await Self.exported(models: ["alpha"])
        let second = try Self.secondMachine(fixture, extra: #""sources": [{"bundle": "\#(bundle.path)"}], "fallback": "none","#)
        let before = fixture.registry.storageBytesServed
        let result = try await CLIProcess.run(["sync"], environment: fixture.environment, in: second)
        #expect(result.status == 3, "\(result.all)")
        #expect(Self.installed(second, "alpha") == fixture.registry.artifactBytes(modelId: "alpha"))
        #expect(result.stderr.contains("beta:") && result.stderr.contains("\"fallback\": \"none\""))
        #expect(fixture.registry.storageBytesServed == before)
        #expect(result.stdout.contains("alpha: installed 1.0.0") && result.stdout.contains("from bundle \(bundle.path)"))
    }

    @Test("a private model comes from a bundle only when the source is marked \"private\": true (then no session is needed), online and offline")
    func privateModels() async throws {
        let fixture = try Fixture(models: ["alpha"], extraModelEntries: [#"{"id": "secret", "session": {"env": "TEST_SESSION"}}"#])
        var env = fixture.environment
        env["TEST_SESSION"] = fixture.registry.issueSession(principalId: "ci")
        #expect(try await fixture.run(["sync", "--quiet"], environment: env).status == 0)
        // Left out unless asked for: anyone who can read a bundle has its bytes.
        let withoutFlag = try await fixture.run(["export", "public-only"], environment: [:])
        #expect(withoutFlag.status == 3, "\(withoutFlag.all)")
        #expect(withoutFlag.stderr.contains("secret: is private: not exported") && withoutFlag.stderr.contains("pass --include-private"), "\(withoutFlag.stderr)")
        let publicOnly = try BundleIndex.read(BundleLayout(directory: fixture.directory.appendingPathComponent("public-only")))
        #expect(publicOnly.models.map(\.modelId) == ["alpha"])
        #expect(!FileManager.default.fileExists(atPath: BundleLayout(directory: fixture.directory.appendingPathComponent("public-only")).blob(fixture.registry.sha256(modelId: "secret")).path))
        #expect(try await fixture.run(["export", "bundle", "--include-private", "--quiet"], environment: [:]).status == 0)
        let bundle = fixture.directory.appendingPathComponent("bundle").path

        let unmarked = try Self.secondMachine(fixture, "unmarked", models: ["alpha", "secret"], extra: #""sources": [{"bundle": "\#(bundle)"}],"#)
        let refused = try await CLIProcess.run(["sync"], environment: fixture.environment, in: unmarked)
        #expect(refused.status == 3, "\(refused.all)")
        #expect(Self.installed(unmarked, "secret") == nil)
        #expect(refused.stderr.contains("secret:"))

        let marked = try Self.secondMachine(fixture, "marked", models: ["alpha", "secret"], extra: #""sources": [{"bundle": "\#(bundle)", "private": true}],"#)
        let before = fixture.registry.storageBytesServed
        let online = try await CLIProcess.run(["sync"], environment: fixture.environment, in: marked)
        #expect(online.status == 0, "\(online.all)")
        #expect(Self.installed(marked, "secret") == fixture.registry.artifactBytes(modelId: "secret"))
        #expect(fixture.registry.storageBytesServed == before)

        fixture.registry.stop()
        let offlineDir = try Self.secondMachine(fixture, "offline", models: ["secret"], extra: #""sources": [{"bundle": "\#(bundle)", "private": true}],"#)
        let offline = try await CLIProcess.run(["sync", "--offline"], environment: [:], in: offlineDir)
        #expect(offline.status == 0, "\(offline.all)")
        #expect(Self.installed(offlineDir, "secret") != nil)
    }

    @Test("plan --offline --json says where each model would come from, and changes nothing")
    func planOffline() async throws {
        let (fixture, bundle) = try await Self.exported()
        fixture.registry.stop()
        let second = try Self.secondMachine(fixture)
        let result = try await CLIProcess.run(["plan", "--offline", "--from", bundle.path, "--json"], environment: [:], in: second)
        #expect(result.status == 10, "\(result.all)")
        let plan = try #require(result.jsonLines().first { $0["type"] as? String == "plan" })
        let items = try #require(plan["items"] as? [[String: Any]])
        #expect(items.count == 2)
        #expect(items.allSatisfy { $0["action"] as? String == "download" && $0["source"] as? String == "bundle \(bundle.path)" })
        #expect(Self.installed(second, "alpha") == nil)
        let text = try await CLIProcess.run(["plan", "--offline", "--from", bundle.path, "--progress", "never"], environment: ["COLUMNS": "400"], in: second)
        #expect(text.status == 10)
        #expect(text.stdout.contains("install 1.0.0 (from bundle \(bundle.path))"), "\(text.stdout)")
    }

    @Test("a mirror's index.json says what it holds: a model it does not list is never requested from it, and the plan says the registry serves it", .requires(.nginx))
    func mirrorIndexListsWhatItHolds() async throws {
        let (fixture, bundle) = try await Self.exported(models: ["alpha"])
        let nginx = try await NginxMirror(root: bundle)
        let second = try Self.secondMachine(fixture, extra: #""sources": [{"mirror": "\#(nginx.baseURL)"}],"#)

        let result = try await CLIProcess.run(["sync", "--json"], environment: fixture.environment, in: second)
        let log = nginx.accessLog.split(separator: "\n").map(String.init)
        await nginx.stop()
        #expect(result.status == 0, "\(result.all)")
        #expect(log == ["/index.json 200 key=- auth=-", "/blobs/sha256/\(fixture.registry.sha256(modelId: "alpha")) 200 key=- auth=-"], "\(log)")
        let plan = try #require(result.jsonLines().first { $0["type"] as? String == "plan" })
        let items = try #require(plan["items"] as? [[String: Any]])
        #expect(items.first { $0["modelId"] as? String == "beta" }?["source"] as? String == "registry")
        #expect(items.first { $0["modelId"] as? String == "alpha" }?["source"] as? String == "mirror \(nginx.baseURL)")
        let models = Self.models(result.summary())
        #expect(models["beta"]?["source"] as? String == "registry")
        // --json says why not from the mirror.
        #expect(models["beta"]?["sourcesSkipped"] as? [String] == ["mirror \(nginx.baseURL): its index.json does not list sha256 \(fixture.registry.sha256(modelId: "beta").prefix(12))…"])
        #expect(models["alpha"]?["sourcesSkipped"] is NSNull || models["alpha"]?["sourcesSkipped"] == nil)
        #expect(Self.installed(second, "beta") == fixture.registry.artifactBytes(modelId: "beta"))
        #expect((result.summary()["warnings"] as? [String] ?? []).isEmpty, "\(result.all)")
    }

    @Test("a mirror whose index.json is of a newer format, or whose index lists a blob it does not serve, is named in a warning saying what to do; nothing unverified is installed", .requires(.nginx))
    func mirrorIndexProblemsWarn() async throws {
        let (fixture, bundleURL) = try await Self.exported()
        let bundle = BundleLayout(directory: bundleURL)
        try FileManager.default.removeItem(at: bundle.blob(fixture.registry.sha256(modelId: "beta"))) // an incomplete copy
        let nginx = try await NginxMirror(root: bundleURL)
        let second = try Self.secondMachine(fixture, extra: #""sources": [{"mirror": "\#(nginx.baseURL)"}],"#)

        let incomplete = try await CLIProcess.run(["sync", "--json"], environment: fixture.environment, in: second)
        #expect(incomplete.status == 0, "\(incomplete.all)")
        var warnings = incomplete.summary()["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("mirror \(nginx.baseURL) lists sha256 \(fixture.registry.sha256(modelId: "beta").prefix(12))… (beta 2.1.0) in its index.json but answered 404") }, "\(warnings)")
        #expect(Self.models(incomplete.summary())["beta"]?["source"] as? String == "registry")

        try Data(#"{"formatVersion": 7, "models": [], "shards": ["a"]}"#.utf8).write(to: bundle.indexFile)
        let third = try Self.secondMachine(fixture, "third", extra: #""sources": [{"mirror": "\#(nginx.baseURL)"}],"#)
        let newer = try await CLIProcess.run(["sync", "--json"], environment: fixture.environment, in: third)
        await nginx.stop()
        #expect(newer.status == 0, "\(newer.all)")
        warnings = newer.summary()["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.contains("\(nginx.baseURL)/index.json: formatVersion: bundle index format 7 is newer than this manashiki-sync reads (1) — upgrade manashiki-sync") }, "\(warnings)")
        // Its blobs are still used (they are verified): alpha came from the mirror.
        #expect(Self.models(newer.summary())["alpha"]?["source"] as? String == "mirror \(nginx.baseURL)")
        #expect(Self.installed(third, "alpha") == fixture.registry.artifactBytes(modelId: "alpha"))
    }

    @Test("a source that serves nothing is named in a warning, not silently skipped: a --from directory that does not exist, a mirror on an --offline run")
    func idleSourcesWarn() async throws {
        let (fixture, bundle) = try await Self.exported()
        let second = try Self.secondMachine(fixture)
        let missing = fixture.directory.appendingPathComponent("not-mounted").path
        let online = try await CLIProcess.run(["sync", "--from", missing], environment: fixture.environment, in: second)
        #expect(online.status == 0, "\(online.all)")
        #expect(online.stderr.contains("warning: bundle \(missing) does not exist, so it serves nothing this run"), "\(online.stderr)")

        let third = try Self.secondMachine(fixture, "third", extra: #""sources": [{"mirror": "http://127.0.0.1:9/bundle"}],"#)
        let offline = try await CLIProcess.run(["sync", "--offline", "--from", bundle.path], environment: [:], in: third)
        #expect(offline.status == 0, "\(offline.all)")
        #expect(offline.stderr.contains("warning: mirror http://127.0.0.1:9/bundle is not used: --offline makes no network request"), "\(offline.stderr)")
    }

    @Test("--from with a plain-http URL to another host says how to allow it (the manifest's allowHTTP), not a key the command line lacks")
    func fromPlainHTTPHint() async throws {
        let fixture = try Fixture()
        let result = try await fixture.run(["sync", "--from", "http://10.0.0.5/bundle"])
        #expect(result.status == 2)
        #expect(result.stderr.contains(#"list it in the manifest's "sources" as {"mirror": "http://10.0.0.5/bundle", "allowHTTP": true}"#), "\(result.stderr)")
    }

    @Test("a mirror whose index.json cannot be used (a redirect the URL policy refuses) still serves its blobs, with a warning; only a mirror that does not answer is dropped for the run", .requires(.nginx))
    func unusableIndexKeepsMirror() async throws {
        let (fixture, bundle) = try await Self.exported()
        let nginx = try await NginxMirror(server: """
        root \(bundle.path);
            location /blobs/ { default_type application/octet-stream; }
            location = /index.json { return 302 http://192.0.2.1/index.json; }
        """)
        let second = try Self.secondMachine(fixture, extra: #""sources": [{"mirror": "\#(nginx.baseURL)"}],"#)
        let result = try await CLIProcess.run(["sync", "--json"], environment: fixture.environment, in: second)
        await nginx.stop()
        #expect(result.status == 0, "\(result.all)")
        let summary = result.summary()
        #expect(summary["bytesBySource"] as? [String: Int] == ["mirror \(nginx.baseURL)": (64 + 128) << 10], "\(result.all)")
        let warnings = summary["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.hasPrefix("mirror \(nginx.baseURL): its index.json could not be read") }, "\(warnings)")
    }

    @Test("plan --locked --offline --from a bundle that lacks a locked blob blocks that model in the plan, naming the blob (a build learns the bundle is incomplete before anything runs)")
    func planBlocksWhatNoSourceServes() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["lock", "--quiet"]).status == 0)
        #expect(try await fixture.run(["sync", "--locked", "--quiet"]).status == 0)
        #expect(try await fixture.run(["export", "bundle", "--select", "lock", "--quiet"], environment: [:]).status == 0)
        let bundle = BundleLayout(directory: fixture.directory.appendingPathComponent("bundle"))
        let betaSHA = fixture.registry.sha256(modelId: "beta")
        try FileManager.default.removeItem(at: bundle.blob(betaSHA))
        fixture.registry.stop()
        let build = try Self.secondMachine(fixture, "image")
        try FileManager.default.copyItem(at: fixture.directory.appendingPathComponent("manashiki.lock.json"),
                                         to: build.appendingPathComponent("manashiki.lock.json"))

        let plan = try await CLIProcess.run(["plan", "--locked", "--offline", "--from", bundle.directory.path, "--json"], environment: [:], in: build)
        #expect(plan.status == 1, "\(plan.all)")
        let items = try #require(plan.jsonLines().first { $0["type"] as? String == "plan" }?["items"] as? [[String: Any]])
        let beta = try #require(items.first { $0["modelId"] as? String == "beta" })
        #expect(beta["action"] as? String == "blocked", "\(beta)")
        #expect((beta["reason"] as? String)?.contains("no blobs/sha256/\(betaSHA); --offline makes no network request") == true, "\(beta)")
        #expect(items.first { $0["modelId"] as? String == "alpha" }?["action"] as? String == "download")

        let sync = try await CLIProcess.run(["sync", "--locked", "--offline", "--from", bundle.directory.path], environment: [:], in: build)
        #expect(sync.status == 3, "\(sync.all)")
        #expect(sync.stderr.contains("beta:") && sync.stderr.contains("no blobs/sha256/\(betaSHA)"))
        #expect(Self.installed(build, "alpha") != nil && Self.installed(build, "beta") == nil)
    }
}
#endif

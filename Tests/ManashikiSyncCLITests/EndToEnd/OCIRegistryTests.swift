#if os(Linux) || os(macOS)
import Foundation
import ManashikiCore
import ManashikiTestSupport
import Manashiki
import Testing
import ManashikiRegistry
import ManashikiSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// OCI registries with real parts: Debian's distribution registry (`docker-registry`) with TLS
/// from a test CA and htpasswd, or the token flow of `TokenServer`; `skopeo` (Debian) and oras
/// (PyPI) as independent clients; nginx in front for redirects to blob storage and a store
/// that ignores `Range`; the built binary and the development registry.
@Suite("OCI registries: export oci://, OCI sources, auth (docker-registry, skopeo, oras, nginx, built binary)",
       .requires(.dockerRegistry, .htpasswd, .openssl))
struct OCIRegistryTests {
    static let user = DistributionRegistry.user, password = DistributionRegistry.password

    /// A fresh repository name.
    static func repository(_ name: String) -> String { "t\(UUID().uuidString.prefix(8).lowercased())/\(name)" }

    /// An auth file (`{"auths": {HOST: {"auth": base64}}}`) as docker, podman and oras write.
    static func authFile(_ url: URL, host: String, user: String = user, password: String = password) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let auth = Data("\(user):\(password)".utf8).base64EncodedString()
        try Data(#"{"auths": {"\#(host)": {"auth": "\#(auth)"}}}"#.utf8).write(to: url)
    }

    /// A machine with its own store syncing `models` with `sources` (raw JSON) and the registry's CA.
    static func machine(_ fixture: Fixture, _ name: String, models: [String] = ["alpha", "beta"], sources: String, ca: URL?,
                        extra: String = "", policies: String = #"{"checkCompatibility": false, "retry": {"maxAttempts": 1}}"#) throws -> URL {
        let dir = fixture.directory.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let entries = models.map { #"{"id": "\#($0)"}"# }.joined(separator: ", ")
        let text = """
        {"schemaVersion": 1,
         "registry": {"baseURL": "\(fixture.registry.apiBaseURL.absoluteString)"\(ca.map { #", "caBundle": "\#($0.path)""# } ?? "")},
         "store": {"directory": "models", "concurrency": 2},
         "device": {"platform": "linux"},
         "policies": \(policies),
         "sources": \(sources), \(extra)
         "models": [\(entries)]}
        """
        try Data(text.utf8).write(to: dir.appendingPathComponent("manashiki.json"))
        return dir
    }

    static func installed(_ dir: URL, _ id: String) -> Data? { FileManager.default.contents(atPath: dir.appendingPathComponent("models/\(id).bin").path) }

    /// A synced fixture whose HOME has a docker config for `registry`.
    static func syncedFixture(_ registry: DistributionRegistry, models: [String] = ["alpha", "beta"]) async throws -> Fixture {
        let fixture = try Fixture(models: models)
        let sync = try await fixture.run(["sync", "--quiet"])
        try #require(sync.status == 0, "\(sync.all)")
        try authFile(fixture.directory.appendingPathComponent(".docker/config.json"), host: registry.host)
        return fixture
    }

    @Test("export oci:// pushes each model as a blob of its own digest; skopeo reads the same bytes; a second store syncs with 0 bytes from the storage origin, and an offline one plans from the tag", .requires(.skopeo))
    func pushReadSync() async throws {
        let registry = try await DistributionRegistry.sharedBasic()
        let ca = try #require(registry.ca).certificate
        let fixture = try await Self.syncedFixture(registry)
        let repo = Self.repository("models")
        let ref = registry.reference(repo)

        let push = try await fixture.run(["export", ref, "--ca-bundle", ca.path, "--json"], environment: [:])
        #expect(push.status == 0, "\(push.all)")
        let summary = push.summary()
        #expect((summary["uploaded"] as? [[String: Any]])?.count == 2, "\(summary)")
        let digest = try #require(summary["manifestDigest"] as? String)
        let again = try await fixture.run(["export", ref, "--ca-bundle", ca.path, "--json"], environment: [:])
        #expect(again.status == 0, "\(again.all)")
        #expect((again.summary()["uploaded"] as? [[String: Any]])?.isEmpty == true)    // HEAD first: nothing sent twice
        #expect((again.summary()["present"] as? [[String: Any]])?.count == 2)
        #expect(again.summary()["manifestDigest"] as? String == digest)                  // the same selection, the same manifest
        // Another repository of the same registry: mounted from the first, nothing uploaded.
        let mounted = try await fixture.run(["export", registry.reference(Self.repository("mounted")), "--mount-from", repo, "--ca-bundle", ca.path, "--json"], environment: [:])
        #expect(mounted.status == 0, "\(mounted.all)")
        #expect((mounted.summary()["mounted"] as? [[String: Any]])?.count == 2 && mounted.summary()["bytesUploaded"] as? Int == 0, "\(mounted.summary())")

        // skopeo (an independent client) copies the artifact out: the same bytes under the same digests.
        let certs = fixture.directory.appendingPathComponent("certs")
        try FileManager.default.createDirectory(at: certs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: ca, to: certs.appendingPathComponent("ca.crt"))
        let out = fixture.directory.appendingPathComponent("skopeo-out")
        let copy = try await ExternalTool.run("skopeo", ["--insecure-policy", "copy", "--src-cert-dir", certs.path, "--src-creds", "\(Self.user):\(Self.password)",
                                                         "docker://\(registry.host)/\(repo):v1", "dir:\(out.path)"])
        #expect(copy.succeeded, "\(copy.output)")
        for id in ["alpha", "beta"] {
            let sha = fixture.registry.sha256(modelId: id)
            #expect(FileManager.default.contents(atPath: out.appendingPathComponent(sha).path) == fixture.registry.artifactBytes(modelId: id))
        }
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: out.appendingPathComponent("manifest.json"))) as? [String: Any])
        #expect(manifest["artifactType"] as? String == OCIMediaTypes.artifactType)
        #expect((manifest["config"] as? [String: Any])?["mediaType"] as? String == OCIMediaTypes.config)
        let layers = try #require(manifest["layers"] as? [[String: Any]])
        #expect(layers.compactMap { ($0["annotations"] as? [String: String])?[OCIMediaTypes.titleAnnotation] }.sorted() == ["alpha.bin", "beta.bin"])
        #expect(layers.allSatisfy { $0["mediaType"] as? String == OCIMediaTypes.modelLayer })

        // A second machine: credentials from its own auth file named in the source.
        let second = try Self.machine(fixture, "second", sources: #"[{"oci": "\#(registry.host)/\#(repo)", "tag": "v1", "credentials": {"file": "auth.json"}}]"#, ca: ca)
        try Self.authFile(second.appendingPathComponent("auth.json"), host: registry.host)
        let before = fixture.registry.storageBytesServed
        let sync = try await CLIProcess.run(["sync", "--json"], environment: fixture.environment, in: second)
        #expect(sync.status == 0, "\(sync.all)")
        #expect(fixture.registry.storageBytesServed == before)                          // not one byte from the storage origin
        for id in ["alpha", "beta"] { #expect(Self.installed(second, id) == fixture.registry.artifactBytes(modelId: id)) }
        let label = "oci://\(registry.host)/\(repo):v1"
        #expect(sync.summary()["bytesBySource"] as? [String: Int] == [label: (64 + 128) << 10], "\(sync.summary())")

        // An air-gapped machine: --offline plans from the tag's artifact; no key, auth from REGISTRY_AUTH_FILE.
        let third = try Self.machine(fixture, "third", sources: "[]", ca: nil)
        let offline = try await CLIProcess.run(["sync", "--offline", "--json", "--from", ref, "--ca-bundle", ca.path],
                                               environment: ["REGISTRY_AUTH_FILE": second.appendingPathComponent("auth.json").path], in: third)
        #expect(offline.status == 0, "\(offline.all)")
        for id in ["alpha", "beta"] { #expect(Self.installed(third, id) == fixture.registry.artifactBytes(modelId: id)) }
        for output in [push.all, again.all, sync.all, offline.all] { #expect(!output.contains(Self.password) && !output.contains(Fixture.key)) }
    }

    @Test("the Bearer token flow: one token per run and scope from a token service the registry verifies; wrong credentials fail at once, naming the registry, without a retry storm")
    func bearerTokens() async throws {
        let server = try await TokenServer(users: [Self.user: Self.password])
        defer { server.stop() }
        let registry = try await DistributionRegistry(auth: .token(server))
        let ca = try #require(registry.ca).certificate
        let fixture = try await Self.syncedFixture(registry)
        let authFile = fixture.directory.appendingPathComponent("containers/auth.json")
        try Self.authFile(authFile, host: registry.host)
        let repo = Self.repository("models")
        let ref = registry.reference(repo)

        let push = try await fixture.run(["export", ref, "--ca-bundle", ca.path, "--json"], environment: ["REGISTRY_AUTH_FILE": authFile.path])
        #expect(push.status == 0, "\(push.all)")
        let pushTokens = server.requests
        #expect(pushTokens.count == 1, "\(pushTokens.map(\.target))")                   // cached for the whole push
        #expect(pushTokens.allSatisfy { $0.header("Authorization")?.hasPrefix("Basic ") == true && $0.target.contains("repository%3A\(repo.replacingOccurrences(of: "/", with: "%2F"))%3Apull%2Cpush") || $0.target.contains("repository:\(repo):pull,push") }, "\(pushTokens.map(\.target))")

        let second = try Self.machine(fixture, "second", sources: #"[{"oci": "\#(registry.host)/\#(repo)", "tag": "v1", "credentials": {"env": "REG_CREDS"}}]"#, ca: ca)
        let sync = try await CLIProcess.run(["sync", "--json"], environment: fixture.environment.merging(["REG_CREDS": "\(Self.user):\(Self.password)"]) { $1 }, in: second)
        #expect(sync.status == 0, "\(sync.all)")
        for id in ["alpha", "beta"] { #expect(Self.installed(second, id) == fixture.registry.artifactBytes(modelId: id)) }
        #expect(server.requests.count == 2, "\(server.requests.map(\.target))")         // one token for the pull scope

        // Wrong password: export fails naming the registry and the auth file, after one token request.
        try Self.authFile(authFile, host: registry.host, password: "wrong-Passw0rd")
        let denied = try await fixture.run(["export", ref, "--ca-bundle", ca.path], environment: ["REGISTRY_AUTH_FILE": authFile.path])
        #expect(denied.status == 1, "\(denied.all)")
        #expect(denied.stderr.contains("registry \(registry.host) refused the credentials from \(authFile.path)"), "\(denied.stderr)")
        #expect(server.requests.count == 3)
        // A sync with "fallback": "none" and wrong credentials: each model fails naming the registry; one token request.
        let third = try Self.machine(fixture, "third", sources: #"[{"oci": "\#(registry.host)/\#(repo)", "tag": "v1", "credentials": {"env": "REG_CREDS"}}]"#,
                                     ca: ca, extra: #""fallback": "none","#)
        let refused = try await CLIProcess.run(["sync"], environment: fixture.environment.merging(["REG_CREDS": "\(Self.user):nope"]) { $1 }, in: third)
        #expect(refused.status == 1, "\(refused.all)")
        #expect(refused.all.contains("registry \(registry.host) refused the credentials from environment variable REG_CREDS"), "\(refused.all)")
        #expect(server.requests.count == 4)
        for output in [push.all, sync.all, denied.all, refused.all] { #expect(!output.contains(Self.password) && !output.contains("wrong-Passw0rd")) }
        await registry.stop()
    }

    /// Runs oras-py (PyPI) pushing `files` (names in `directory`) with `config` (`path:mediatype`) or its default config.
    static func orasPush(_ registry: DistributionRegistry, _ target: String, files: [String], config: String?, in directory: URL) async throws -> ExternalTool.Result {
        let script = """
        import os, sys, oras.client
        c = oras.client.OrasClient(hostname="\(registry.host)", auth_backend="basic")
        c.login(username="\(user)", password="\(password)", hostname="\(registry.host)")
        r = c.push(target="\(target)", files=[\(files.map { "'\($0)'" }.joined(separator: ", "))], manifest_config=\(config.map { "'\($0)'" } ?? "None"))
        sys.exit(0 if r.status_code in (200, 201) else 1)
        """
        let file = directory.appendingPathComponent("push.py")
        try Data(script.utf8).write(to: file)
        return try await ExternalTool.run("/bin/sh", ["-c", "REQUESTS_CA_BUNDLE='\(try #require(registry.ca).certificate.path)' exec python3 push.py"], in: directory)
    }

    @Test("an artifact oras pushed with our config media type syncs offline; a tag of another kind is refused as a source and never moved by export, naming its media type", .requires(.oras))
    func orasInterop() async throws {
        let registry = try await DistributionRegistry.sharedBasic()
        let ca = try #require(registry.ca).certificate
        let fixture = try await Self.syncedFixture(registry)
        let bundle = fixture.directory.appendingPathComponent("bundle")
        #expect(try await fixture.run(["export", "bundle", "--quiet"], environment: [:]).status == 0)
        for id in ["alpha", "beta"] {
            try FileManager.default.copyItem(at: BundleLayout(directory: bundle).blob(fixture.registry.sha256(modelId: id)), to: bundle.appendingPathComponent("\(id).bin"))
        }
        let repo = Self.repository("oras")
        let ours = try await Self.orasPush(registry, "\(registry.host)/\(repo):v1", files: ["alpha.bin:\(OCIMediaTypes.modelLayer)", "beta.bin:\(OCIMediaTypes.modelLayer)"],
                                           config: "index.json:\(OCIMediaTypes.config)", in: bundle)
        try #require(ours.succeeded, "oras push failed: \(ours.output)")
        let other = try await Self.orasPush(registry, "\(registry.host)/\(repo):plain", files: ["alpha.bin"], config: nil, in: bundle)
        try #require(other.succeeded, "oras push failed: \(other.output)")
        try Self.authFile(fixture.directory.appendingPathComponent("auth.json"), host: registry.host)
        let env = ["REGISTRY_AUTH_FILE": fixture.directory.appendingPathComponent("auth.json").path]

        let machine = try Self.machine(fixture, "oras", sources: "[]", ca: nil)
        let sync = try await CLIProcess.run(["sync", "--offline", "--from", registry.reference(repo), "--ca-bundle", ca.path], environment: env, in: machine)
        #expect(sync.status == 0, "\(sync.all)")
        for id in ["alpha", "beta"] { #expect(Self.installed(machine, id) == fixture.registry.artifactBytes(modelId: id)) }

        let refusing = try Self.machine(fixture, "refusing", sources: "[]", ca: nil)
        let refused = try await CLIProcess.run(["sync", "--offline", "--from", registry.reference(repo, tag: "plain"), "--ca-bundle", ca.path], environment: env, in: refusing)
        #expect(refused.status == 1, "\(refused.all)")
        #expect(refused.all.contains("is an image manifest with config application/vnd.unknown.config.v1+json, not a Manashiki model artifact"), "\(refused.all)")
        let orasPuts = registry.requests(containing: "PUT /v2/\(repo)/manifests/plain").count
        let export = try await fixture.run(["export", registry.reference(repo, tag: "plain"), "--ca-bundle", ca.path], environment: [:])
        #expect(export.status == 1, "\(export.all)")
        #expect(export.stderr.contains("the tag already names an image manifest with config application/vnd.unknown.config.v1+json"), "\(export.stderr)")
        try await Task.sleep(for: .milliseconds(300)) // the registry logs a request after answering it
        #expect(orasPuts > 0 && registry.requests(containing: "PUT /v2/\(repo)/manifests/plain").count == orasPuts)   // only oras's own push
    }

    @Test("a corrupt blob in the registry is rejected and a missing one skipped: both models come from the Manashiki registry instead")
    func corruptAndMissingFallThrough() async throws {
        let registry = try await DistributionRegistry(auth: .none, tls: false)   // its own: this test damages blobs
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync", "--quiet"]).status == 0)
        let repo = Self.repository("models")
        #expect(try await fixture.run(["export", registry.reference(repo), "--quiet"], environment: [:]).status == 0)
        let beta = registry.blobData(fixture.registry.sha256(modelId: "beta"))
        var bytes = try Data(contentsOf: beta)
        bytes[1000] ^= 0xFF
        try bytes.write(to: beta)
        try FileManager.default.removeItem(at: registry.blobData(fixture.registry.sha256(modelId: "alpha")))

        let second = try Self.machine(fixture, "second", sources: #"[{"oci": "http://\#(registry.host)/\#(repo)", "tag": "v1"}]"#, ca: nil)
        let before = fixture.registry.storageBytesServed
        let sync = try await CLIProcess.run(["sync", "--json"], environment: fixture.environment, in: second)
        await registry.stop()
        #expect(sync.status == 0, "\(sync.all)")
        for id in ["alpha", "beta"] { #expect(Self.installed(second, id) == fixture.registry.artifactBytes(modelId: id)) }
        #expect(fixture.registry.storageBytesServed - before == (64 + 128) << 10)
        let summary = sync.summary()
        let label = "oci+http://\(registry.host)/\(repo):v1"
        #expect((summary["warnings"] as? [String] ?? []).contains { $0.contains("\(label) served a corrupt copy of beta") }, "\(summary)")
        #expect(sync.summaryModel("alpha")?["source"] as? String == "registry")
        #expect((sync.summaryModel("alpha")?["sourcesSkipped"] as? [String])?.first?.hasPrefix(label) == true, "\(summary)")
    }

    @Test("kill -9 mid-push: the tag is not moved and the next export continues the registry's upload session, sending only what is missing")
    func killedPush() async throws {
        let registry = try await DistributionRegistry.sharedBasic()
        let ca = try #require(registry.ca).certificate
        // 2 MiB/s in 8 MiB chunks: each chunk waits for the budget (4 s) before it is sent, so
        // the kill right after an acknowledged chunk lands between requests, even on a loaded machine.
        let fixture = try Fixture(models: ["big"], policies: #"{"checkCompatibility": false, "maxBytesPerSecond": 2097152}"#)
        let big = try ExportCommandTests.storeLarge(fixture, id: "big", size: 16 << 20)
        try Self.authFile(fixture.directory.appendingPathComponent(".docker/config.json"), host: registry.host)
        let repo = Self.repository("big")
        let uploads = fixture.store.appendingPathComponent(".manashiki/oci-uploads").path
        let child = try fixture.start(["export", registry.reference(repo), "--ca-bundle", ca.path, "--chunk-size", "8M"], environment: [:])
        let killed = await child.send(SIGKILL, when: {
            ((try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? []).contains { $0.hasSuffix(".json") }
        })
        let first = await child.finish()
        try #require(killed && first.signalled, "the push was not caught mid-upload: \(first.all)")
        #expect(registry.requests(containing: "PUT /v2/\(repo)/manifests/").isEmpty)      // the tag was not moved

        let rerun = try await fixture.run(["export", registry.reference(repo), "--ca-bundle", ca.path, "--chunk-size", "8M", "--json"], environment: [:])
        #expect(rerun.status == 0, "\(rerun.all)")
        let summary = rerun.summary()
        let resumed = try #require(summary["bytesResumed"] as? Int)
        #expect(resumed >= 8 << 20, "\(summary)")
        #expect(resumed + (summary["bytesUploaded"] as? Int ?? -1) == Int(big.size), "\(summary)")
        #expect((summary["restarted"] as? [String])?.isEmpty == true, "\(summary)")
        let stored = try Data(contentsOf: registry.blobData(big.sha256))
        #expect(SHA256Hasher.hash(stored).hex == big.sha256)
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: uploads)) ?? []).filter { $0.hasSuffix(".json") }.isEmpty)
    }

    @Test("kill -9 mid-pull resumes with Range; through a front that redirects blobs to storage ignoring Range, the pull starts over, and the storage gets no credentials", .requires(.nginx))
    func killedPullAndRedirects() async throws {
        let registry = try await DistributionRegistry.sharedBasic()
        let ca = try #require(registry.ca).certificate
        let fixture = try Fixture(models: ["bigpull"])
        let big = try ExportCommandTests.storeLarge(fixture, id: "bigpull", size: 32 << 20)
        try Self.authFile(fixture.directory.appendingPathComponent(".docker/config.json"), host: registry.host)
        let repo = Self.repository("bigpull")
        #expect(try await fixture.run(["export", registry.reference(repo), "--ca-bundle", ca.path, "--quiet"], environment: [:]).status == 0)
        let throttled = #"{"checkCompatibility": false, "maxBytesPerSecond": 8388608}"#

        /// Starts an offline sync of `machine`, kills it once a partial holds 8 MiB, and runs it again.
        func interruptedSync(_ machine: URL) async throws -> ChildResult {
            let store = machine.appendingPathComponent("models")
            let child = try CLIProcess.start(["sync", "--offline"], environment: [:], in: machine)
            // What the next run can keep (a parallel transfer's file length says nothing).
            let killed = await child.send(SIGKILL, when: {
                PartialFolder.resumableBytes(in: store).contains { $0 >= 8 << 20 && $0 < big.size }
            })
            let first = await child.finish()
            try #require(killed && first.signalled, "the pull was not caught mid-transfer: \(first.all)")
            return try await CLIProcess.run(["sync", "--offline", "--json"], environment: [:], in: machine)
        }

        let direct = try Self.machine(fixture, "direct", models: ["bigpull"], sources: #"[{"oci": "\#(registry.host)/\#(repo)", "tag": "v1", "credentials": {"file": "auth.json"}}]"#,
                                      ca: ca, policies: throttled)
        try Self.authFile(direct.appendingPathComponent("auth.json"), host: registry.host)
        let resumed = try await interruptedSync(direct)
        #expect(resumed.status == 0, "\(resumed.all)")
        #expect((resumed.summaryModel("bigpull")?["resumedFrom"] as? Int ?? 0) >= 8 << 20, "\(resumed.all)")
        #expect(Self.installed(direct, "bigpull").map { SHA256Hasher.hash($0).hex } == big.sha256)

        // nginx in front: blob GETs are redirected (307) to another origin serving the registry's
        // storage, which ignores Range; everything else is passed to the registry.
        let storage = try await NginxMirror(server: "root \(registry.storage.path);\n    max_ranges 0;\n    location / { default_type application/octet-stream; }")
        let front = try await NginxMirror(server: """
            location ~ "^/v2/(.+)/blobs/sha256:([0-9a-f]{2})([0-9a-f]{62})$" {
                if ($request_method = GET) { return 307 \(storage.baseURL)/docker/registry/v2/blobs/sha256/$2/$2$3/data; }
                proxy_pass https://\(registry.host); proxy_set_header Host $http_host;
            }
            location / { proxy_pass https://\(registry.host); proxy_set_header Host $http_host; }
            """)
        let frontHost = "127.0.0.1:\(front.port)"
        let redirected = try Self.machine(fixture, "redirected", models: ["bigpull"], sources: #"[{"oci": "http://\#(frontHost)/\#(repo)", "tag": "v1", "credentials": {"file": "auth.json"}}]"#,
                                          ca: ca, policies: throttled)
        try Self.authFile(redirected.appendingPathComponent("auth.json"), host: frontHost)
        let restarted = try await interruptedSync(redirected)
        let storageLog = storage.accessLog, frontLog = front.accessLog
        await storage.stop()
        await front.stop()
        #expect(restarted.status == 0, "\(restarted.all)")
        #expect((restarted.summaryModel("bigpull")?["resumedFrom"] as? Int ?? 0) == 0, "\(restarted.all)")   // Range ignored: from byte 0 again
        #expect(Self.installed(redirected, "bigpull").map { SHA256Hasher.hash($0).hex } == big.sha256)
        let blobLines = storageLog.split(separator: "\n").filter { $0.contains(big.sha256) }
        #expect(blobLines.count >= 2, "\(storageLog)")
        #expect(storageLog.split(separator: "\n").allSatisfy { $0.hasSuffix("key=- auth=-") }, "\(storageLog)")   // no credentials to blob storage
        #expect(frontLog.contains("auth=Basic "), "\(frontLog)")                                               // the registry got them
    }

    @Test("a repository that does not exist is named; wrong Basic credentials fail at once naming the registry and the auth file (no retry storm)")
    func missingRepositoryAndWrongPassword() async throws {
        let registry = try await DistributionRegistry.sharedBasic()
        let ca = try #require(registry.ca).certificate
        let fixture = try await Self.syncedFixture(registry)
        let missing = Self.repository("missing")
        let machine = try Self.machine(fixture, "machine", sources: "[]", ca: nil)
        try Self.authFile(machine.appendingPathComponent(".docker/config.json"), host: registry.host)
        let offline = try await CLIProcess.run(["sync", "--offline", "--from", registry.reference(missing), "--ca-bundle", ca.path], environment: [:], in: machine)
        #expect(offline.status == 1, "\(offline.all)")
        #expect(offline.all.contains("\(registry.host) has no repository \(missing) (NAME_UNKNOWN)"), "\(offline.all)")
        // Online, the registry is named in a warning and the models come from the Manashiki registry.
        let online = try await CLIProcess.run(["sync", "--from", registry.reference(missing), "--ca-bundle", ca.path], environment: fixture.environment, in: machine)
        #expect(online.status == 0, "\(online.all)")
        #expect(online.stderr.contains("has no repository \(missing)"), "\(online.stderr)")

        let wrong = fixture.directory.appendingPathComponent("wrong")
        try FileManager.default.createDirectory(at: wrong, withIntermediateDirectories: true)
        try Self.authFile(wrong.appendingPathComponent(".docker/config.json"), host: registry.host, password: "not-the-Passw0rd")
        let repo = Self.repository("denied")
        // distribution logs each refused login ("error authenticating user …"); only this test sends a wrong password.
        let pings = { registry.log.split(separator: "\n").filter { $0.contains("msg=\"error authenticating user") }.count }
        let before = pings()
        let denied = try await CLIProcess.run(["export", registry.reference(repo), "--ca-bundle", ca.path, "--store", fixture.store.path], environment: [:], in: wrong)
        #expect(denied.status == 1, "\(denied.all)")
        #expect(denied.stderr.contains("registry \(registry.host) refused the credentials from \(wrong.path)/.docker/config.json"), "\(denied.stderr)")
        try await Task.sleep(for: .milliseconds(500)) // the registry logs a request after answering it
        // One try with the credentials; nothing after the refusal.
        #expect(pings() - before == 1, "\(registry.log.suffix(3000))")
        #expect(registry.requests(containing: "/v2/\(repo)/").isEmpty)
        #expect(!denied.all.contains("not-the-Passw0rd"))

        // A credential helper named by the docker config (as ECR's or Docker Desktop's are): run
        // with the server on its input, its answer used; the password never in output.
        let helped = fixture.directory.appendingPathComponent("helped")
        let bin = helped.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let script = bin.appendingPathComponent("docker-credential-mktest")
        try Data("#!/bin/sh\nread server\n[ \"$1\" = get ] && [ \"$server\" = \"\(registry.host)\" ] || exit 1\nprintf '{\"ServerURL\": \"%s\", \"Username\": \"\(Self.user)\", \"Secret\": \"\(Self.password)\"}' \"$server\"\n".utf8).write(to: script)
        chmod(script.path, 0o755)
        try FileManager.default.createDirectory(at: helped.appendingPathComponent(".docker"), withIntermediateDirectories: true)
        try Data(#"{"auths": {}, "credHelpers": {"\#(registry.host)": "mktest"}}"#.utf8).write(to: helped.appendingPathComponent(".docker/config.json"))
        let viaHelper = try await CLIProcess.run(["export", registry.reference(Self.repository("helper")), "--ca-bundle", ca.path, "--store", fixture.store.path],
                                                 environment: ["PATH": "\(bin.path):/usr/bin:/bin"], in: helped)
        #expect(viaHelper.status == 0, "\(viaHelper.all)")
        #expect(!viaHelper.all.contains(Self.password))
    }
}
#endif

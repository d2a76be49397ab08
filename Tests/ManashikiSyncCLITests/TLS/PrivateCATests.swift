#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Manashiki
import Testing
import ManashikiRegistry
import ManashikiTestSupport

/// Private CAs over real TLS: a CA and server certificates made with the openssl CLI, Debian's
/// nginx on a loopback port terminating TLS in front of the development registry, and the
/// built `manashiki-sync` binary, run with exactly the environment each case gives it.
@Suite("TLS: private CAs over real TLS (openssl-made CA, nginx in front of the development registry, the built binary)")
struct PrivateCATests {
    /// The development registry behind nginx with a certificate from a fresh CA.
    final class Setup: @unchecked Sendable {
        let fixture: Fixture
        let ca: TestCertificateAuthority
        let nginx: NginxMirror

        init(subjectAltName: String = "IP:127.0.0.1,DNS:localhost", days: Int = 2) async throws {
            fixture = try Fixture(models: ["alpha"])
            ca = try await TestCertificateAuthority.make()
            let server = try await ca.serverCertificate("server", subjectAltName: subjectAltName, days: days)
            nginx = try await NginxMirror(server: "location / { proxy_pass \(fixture.registry.apiBaseURL.absoluteString); }", tls: server)
        }

        /// Writes the manifest: the registry through nginx (https), `registry` extra members,
        /// the default retry policy (four attempts), one model.
        func writeManifest(registry extra: String = "") throws {
            let text = """
            {"schemaVersion": 1,
             "registry": {"baseURL": "\(nginx.baseURL)"\(extra)},
             "store": {"directory": "models"},
             "device": {"platform": "linux"},
             "policies": {"checkCompatibility": false},
             "models": [{"id": "alpha"}]}
            """
            try Data(text.utf8).write(to: fixture.manifestURL)
        }

        /// Runs the binary with the key and `environment` only.
        func run(_ arguments: [String] = ["sync"], environment: [String: String] = [:]) async throws -> ChildResult {
            try await fixture.run(arguments, environment: fixture.environment.merging(environment) { $1 })
        }

        /// TLS handshakes nginx saw fail (one error-log line each), once at least `atLeast`
        /// are logged (nginx logs the client's alert a moment after the client leaves).
        func failedHandshakes(atLeast: Int = 1) async -> Int {
            for _ in 0..<100 {
                let n = nginx.errorLog.components(separatedBy: "SSL_do_handshake() failed").count - 1
                if n >= atLeast { return n }
                try? await Task.sleep(for: .milliseconds(50))
            }
            return nginx.errorLog.components(separatedBy: "SSL_do_handshake() failed").count - 1
        }

        /// Requests that reached the registry through nginx (access-log lines).
        var proxiedRequests: Int { nginx.accessLog.split(separator: "\n").count }

        func stop() async {
            await nginx.stop()
            ca.remove()
        }
    }

    static let advice = "if 127.0.0.1 uses a private or corporate CA, add its CA with `registry.caBundle` in the manifest, `--ca-bundle FILE`, or SSL_CERT_FILE"

    @Test("a server certificate from a CA nobody trusts: one attempt, not four; a terminal error naming the host and what to do; exit 1", .requires(.nginx, .openssl))
    func untrustedCAIsTerminal() async throws {
        let setup = try await Setup()
        try setup.writeManifest()
        let result = try await setup.run()
        let handshakes = await setup.failedHandshakes()
        let json = try await setup.run(["sync", "--json"])
        await setup.stop()
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("the certificate of 127.0.0.1 is not trusted: unable to get local issuer certificate — "), "\(result.stderr)")
        #expect(result.stderr.contains(Self.advice), "\(result.stderr)")
        #expect(!result.all.contains("usually temporary") && !result.all.contains("attempts"), "\(result.all)")
        #expect(!result.all.contains(Fixture.key) && !result.all.contains("https://127.0.0.1"), "\(result.all)")
        #expect(handshakes == 1, "\(setup.nginx.errorLog)")
        #expect(setup.proxiedRequests == 0)
        #expect(setup.fixture.installed("alpha") == nil)
        // --json: the summary's error, terminal, with the hint apart.
        let error = try #require(json.summary()["error"] as? [String: Any])
        #expect(json.status == 1)
        #expect(error["kind"] as? String == "terminal")
        #expect(error["message"] as? String == "the certificate of 127.0.0.1 is not trusted: unable to get local issuer certificate")
        #expect((error["hint"] as? String)?.hasPrefix(Self.advice) == true)
    }

    @Test("registry.caBundle naming the CA (relative to the manifest): the sync succeeds over TLS", .requires(.nginx, .openssl))
    func manifestCABundle() async throws {
        let setup = try await Setup()
        try FileManager.default.copyItem(at: setup.ca.certificate, to: setup.fixture.directory.appendingPathComponent("corp-ca.pem"))
        try setup.writeManifest(registry: #", "caBundle": "corp-ca.pem""#)
        let result = try await setup.run()
        let proxied = setup.proxiedRequests
        await setup.stop()
        #expect(result.status == 0, "\(result.all)")
        #expect(setup.fixture.isInstalledIntact("alpha"))
        #expect(proxied >= 1)
    }

    @Test("--ca-bundle FILE is honoured by plan and lock (without it each fails on the untrusted certificate)", .requires(.nginx, .openssl), arguments: [
        (["plan"], Int32(10)), (["lock"], 0),
    ] as [([String], Int32)])
    func flagCABundleEveryCommand(_ command: [String], _ status: Int32) async throws {
        let setup = try await Setup()
        try setup.writeManifest()
        let refused = try await setup.run(command)
        let trusted = try await setup.run(command + ["--ca-bundle", setup.ca.certificate.path])
        await setup.stop()
        #expect(refused.status == 1, "\(command): exit \(refused.status): \(refused.all)")
        #expect(refused.stderr.contains("the certificate of 127.0.0.1 is not trusted"), "\(command): \(refused.stderr)")
        #expect(trusted.status == status, "\(command): \(trusted.all)")
        #expect(!trusted.stderr.contains("not trusted"), "\(command): \(trusted.stderr)")
    }

    @Test("verify --repair honours --ca-bundle; a repair that cannot download (untrusted certificate) exits 4 and the file stays reported corrupt, also by the next verify", .requires(.nginx, .openssl))
    func repairWithCABundle() async throws {
        let setup = try await Setup()
        try setup.writeManifest()
        let bundle = ["--ca-bundle", setup.ca.certificate.path]
        let synced = try await setup.run(["sync"] + bundle)
        try VerifyCommandTests.corrupt(setup.fixture, "alpha")
        let refused = try await setup.run(["verify", "--repair", "--json"])
        let after = try await setup.run(["verify"])
        let repaired = try await setup.run(["verify", "--repair"] + bundle)
        await setup.stop()
        #expect(synced.status == 0, "\(synced.all)")
        #expect(refused.status == 4, "exit \(refused.status): \(refused.all)")
        #expect(refused.stderr.contains("the certificate of 127.0.0.1 is not trusted"), "\(refused.stderr)")
        #expect(refused.summary()["outcome"] as? String == "damaged", "\(refused.stdout)")
        #expect(after.status == 4, "the failed repair forgot the corrupt file: \(after.all)")
        #expect(after.stderr.contains("alpha: corrupt"), "\(after.stderr)")
        #expect(repaired.status == 0, "\(repaired.all)")
        #expect(setup.fixture.isInstalledIntact("alpha"))
    }

    @Test("--ca-bundle holding only a non-CA certificate (another CA's server certificate): a terminal error saying the bundle does not hold the issuing CA, one attempt", .requires(.nginx, .openssl))
    func bundleWithoutTheCA() async throws {
        let setup = try await Setup()
        let other = try await TestCertificateAuthority.make(name: "Unrelated CA")
        defer { other.remove() }
        let leaf = try await other.serverCertificate("leaf", subjectAltName: "DNS:leaf.example")
        try setup.writeManifest()
        let result = try await setup.run(["sync", "--ca-bundle", leaf.certificate.path])
        let handshakes = await setup.failedHandshakes()
        await setup.stop()
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("the certificate of 127.0.0.1 is not trusted: unable to get local issuer certificate; the CA bundle \(leaf.certificate.standardizedFileURL.path) does not hold the CA that issued it"),
                "\(result.stderr)")
        #expect(!result.all.contains("attempts"), "\(result.all)")
        #expect(handshakes == 1, "\(setup.nginx.errorLog)")
    }

    @Test("a CA as a binary DER .cer file (as corporate IT often hands it out) works as --ca-bundle and as SSL_CERT_FILE", .requires(.nginx, .openssl), arguments: ["--ca-bundle", "SSL_CERT_FILE"])
    func derCABundle(_ setting: String) async throws {
        let setup = try await Setup()
        try setup.writeManifest()
        let der = setup.fixture.directory.appendingPathComponent("corp-ca.cer")
        let converted = try await ExternalTool.run("openssl", ["x509", "-in", setup.ca.certificate.path, "-outform", "der", "-out", der.path])
        #expect(converted.succeeded, "\(converted.output)")
        let result = setting == "--ca-bundle"
            ? try await setup.run(["sync", "--ca-bundle", der.path])
            : try await setup.run(environment: ["SSL_CERT_FILE": der.path])
        await setup.stop()
        #expect(result.status == 0, "\(setting): \(result.all)")
        #expect(setup.fixture.isInstalledIntact("alpha"))
    }

    @Test("--ca-bundle FILE: the sync succeeds over TLS without a manifest setting", .requires(.nginx, .openssl))
    func flagCABundle() async throws {
        let setup = try await Setup()
        try setup.writeManifest()
        let result = try await setup.run(["sync", "--ca-bundle", setup.ca.certificate.path])
        await setup.stop()
        #expect(result.status == 0, "\(result.all)")
        #expect(setup.fixture.isInstalledIntact("alpha"))
    }

    @Test("SSL_CERT_FILE, SSL_CERT_DIR (an `openssl rehash`-ed directory) and CURL_CA_BUNDLE each make the sync succeed", .requires(.nginx, .openssl),
          arguments: ["SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE"])
    func environmentVariables(_ variable: String) async throws {
        let setup = try await Setup()
        try setup.writeManifest()
        let value = variable == "SSL_CERT_DIR" ? try await setup.ca.hashedDirectory().path : setup.ca.certificate.path
        let result = try await setup.run(environment: [variable: value])
        await setup.stop()
        #expect(result.status == 0, "\(variable): \(result.all)")
        #expect(setup.fixture.isInstalledIntact("alpha"))
    }

    @Test("SSL_CERT_DIR holding the CA without `openssl rehash`: a terminal error that says to rehash the directory", .requires(.nginx, .openssl))
    func unhashedCertDirectory() async throws {
        let setup = try await Setup()
        try setup.writeManifest()
        let dir = setup.fixture.directory.appendingPathComponent("certs")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: setup.ca.certificate, to: dir.appendingPathComponent("corp-ca.pem"))
        let result = try await setup.run(["sync", "--json"], environment: ["SSL_CERT_DIR": dir.path])
        await setup.stop()
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("the certificate of 127.0.0.1 is not trusted: unable to get local issuer certificate; if its CA is in SSL_CERT_DIR (\(dir.path)), run `openssl rehash` on that directory"),
                "\(result.stderr)")
        let error = try #require(result.summary()["error"] as? [String: Any], "\(result.stdout)")
        #expect(error["kind"] as? String == "terminal", "\(error)")
    }

    @Test("CURL_CA_BUNDLE wins over SSL_CERT_FILE, as in curl; registry.caBundle wins over both", .requires(.nginx, .openssl))
    func precedence() async throws {
        let setup = try await Setup()
        let other = try await TestCertificateAuthority.make(name: "Unrelated CA")
        defer { other.remove() }
        try setup.writeManifest()
        let curlWins = try await setup.run(environment: ["CURL_CA_BUNDLE": setup.ca.certificate.path, "SSL_CERT_FILE": other.certificate.path])
        try setup.writeManifest(registry: #", "caBundle": "\#(setup.ca.certificate.path)""#)
        let manifestWins = try await setup.run(environment: ["CURL_CA_BUNDLE": other.certificate.path])
        await setup.stop()
        #expect(curlWins.status == 0, "\(curlWins.all)")
        #expect(manifestWins.status == 0, "\(manifestWins.all)")
    }

    @Test("an environment variable naming a missing file: a terminal error naming the variable and the path, nothing sent", .requires(.nginx, .openssl))
    func variableNamingMissingFile() async throws {
        let setup = try await Setup()
        try setup.writeManifest()
        let missing = setup.fixture.directory.appendingPathComponent("no-such-ca.pem").path
        let result = try await setup.run(environment: ["SSL_CERT_FILE": missing])
        let proxied = setup.proxiedRequests
        await setup.stop()
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("SSL_CERT_FILE names \(missing), which does not exist"), "\(result.stderr)")
        #expect(!result.all.contains("attempts"), "\(result.all)")
        #expect(proxied == 0)
    }

    @Test("registry.caBundle naming a missing file or a file without a PEM certificate: a manifest error naming the key (exit 2)",
          arguments: [("missing.pem", nil, "does not exist"), ("notes.txt", "just some text\n", "holds no PEM certificate")] as [(String, String?, String)])
    func badManifestCABundle(_ name: String, _ contents: String?, _ problem: String) async throws {
        let fixture = try Fixture(models: ["alpha"])
        if let contents { try Data(contents.utf8).write(to: fixture.directory.appendingPathComponent(name)) }
        let text = """
        {"schemaVersion": 1, "registry": {"baseURL": "\(fixture.registry.apiBaseURL.absoluteString)", "caBundle": "\(name)"},
         "store": {"directory": "models"}, "device": {"platform": "linux"}, "models": [{"id": "alpha"}]}
        """
        try Data(text.utf8).write(to: fixture.manifestURL)
        let result = try await fixture.run(["sync"])
        #expect(result.status == 2, "\(result.all)")
        let path = fixture.directory.appendingPathComponent(name).standardizedFileURL.path
        #expect(result.stderr.contains("registry.caBundle: \(path) \(problem)"), "\(result.stderr)")
        #expect(result.stderr.contains("name a PEM file holding the CA certificate(s) to trust"), "\(result.stderr)")
        #expect(fixture.registry.requestLog().isEmpty)
    }

    @Test("--ca-bundle naming a missing file: a usage error naming the flag and the path (exit 2), nothing sent")
    func badFlagCABundle() async throws {
        let fixture = try Fixture(models: ["alpha"])
        let result = try await fixture.run(["sync", "--ca-bundle", "no-such-ca.pem"])
        let path = fixture.directory.appendingPathComponent("no-such-ca.pem").standardizedFileURL.path
        #expect(result.status == 2, "\(result.all)")
        #expect(result.stderr.contains("--ca-bundle \(path) does not exist; pass a PEM file holding the CA certificate(s) to trust"), "\(result.stderr)")
        #expect(fixture.registry.requestLog().isEmpty)
    }

    @Test("a trusted certificate issued for another name: 'valid for other.example, not 127.0.0.1', terminal, one attempt", .requires(.nginx, .openssl))
    func hostnameMismatch() async throws {
        let setup = try await Setup(subjectAltName: "DNS:other.example")
        try setup.writeManifest(registry: #", "caBundle": "\#(setup.ca.certificate.path)""#)
        let result = try await setup.run()
        let proxied = setup.proxiedRequests
        await setup.stop()
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("the certificate of 127.0.0.1 is valid for other.example, not 127.0.0.1 — check the host name"), "\(result.stderr)")
        #expect(!result.all.contains("usually temporary") && !result.all.contains("attempts"), "\(result.all)")
        #expect(proxied == 0)
    }

    @Test("the CA applies to mirrors too: an https mirror with the private CA's certificate serves every byte with --ca-bundle; without it the mirror is refused as untrusted and the registry serves", .requires(.nginx, .openssl))
    func mirrorOverTLS() async throws {
        let (fixture, bundle) = try await FleetTests.exported(models: ["alpha"])
        let ca = try await TestCertificateAuthority.make()
        defer { ca.remove() }
        let nginx = try await NginxMirror(root: bundle, tls: try await ca.serverCertificate("mirror", subjectAltName: "IP:127.0.0.1"))
        let extra = #""sources": [{"mirror": "\#(nginx.baseURL)"}],"#
        let trusted = try FleetTests.secondMachine(fixture, "trusted", models: ["alpha"], extra: extra)
        let untrusted = try FleetTests.secondMachine(fixture, "untrusted", models: ["alpha"], extra: extra)
        let before = fixture.registry.storageBytesServed
        let viaMirror = try await CLIProcess.run(["sync", "--json", "--ca-bundle", ca.certificate.path], environment: fixture.environment, in: trusted)
        let servedForTrusted = fixture.registry.storageBytesServed - before
        let fallback = try await CLIProcess.run(["sync", "--json", "-v"], environment: fixture.environment, in: untrusted)
        let servedForUntrusted = fixture.registry.storageBytesServed - before - servedForTrusted
        await nginx.stop()
        #expect(viaMirror.status == 0, "\(viaMirror.all)")
        #expect(servedForTrusted == 0)
        #expect(FleetTests.models(viaMirror.summary())["alpha"]?["source"] as? String == "mirror \(nginx.baseURL)")
        #expect(fallback.status == 0, "\(fallback.all)")
        #expect(servedForUntrusted == 64 << 10)
        let warnings = fallback.summary()["warnings"] as? [String] ?? []
        #expect(warnings.contains { $0.hasPrefix("mirror \(nginx.baseURL) was not used for alpha: The certificate of 127.0.0.1 is not trusted: unable to get local issuer certificate.") }, "\(warnings)")
        for dir in [trusted, untrusted] { #expect(FleetTests.installed(dir, "alpha") == fixture.registry.artifactBytes(modelId: "alpha")) }
    }

    @Test("SDK: DefaultTransport(trust: TLSTrust(caBundle:)) fetches over TLS from a private CA; DefaultTransport() refuses it with APIError.untrustedCertificate", .requires(.nginx, .openssl))
    func sdkTrust() async throws {
        let setup = try await Setup()
        let url = try #require(URL(string: "\(setup.nginx.baseURL)/api/models"))
        let request = HTTPRequest(url: url, headers: ["X-API-Key": Fixture.key])
        let trusted = try await DefaultTransport(trust: TLSTrust(caBundle: setup.ca.certificate)).send(request)
        var refused: (any Error)?
        do { _ = try await DefaultTransport().send(request) } catch { refused = error }
        await setup.stop()
        #expect(trusted.status == 200)
        #expect(refused as? APIError == .untrustedCertificate(host: "127.0.0.1", reason: "unable to get local issuer certificate"), "\(String(describing: refused))")
        #expect((refused as? APIError)?.isRetryable == false)
    }

    @Test("an expired certificate from a trusted CA is APIError.certificateDateInvalid (told by OpenSSL's verify result, not libcurl's words) and sync's advice is the clock or a renewal, not a CA bundle", .requires(.nginx, .openssl))
    func expiredCertificate() async throws {
        let setup = try await Setup(days: -1)
        let url = try #require(URL(string: "\(setup.nginx.baseURL)/api/models"))
        var refused: (any Error)?
        do { _ = try await DefaultTransport(trust: TLSTrust(caBundle: setup.ca.certificate)).send(HTTPRequest(url: url)) } catch { refused = error }
        try setup.writeManifest(registry: #", "caBundle": "\#(setup.ca.certificate.path)""#)
        let sync = try await setup.run(["sync", "--json"])
        await setup.stop()
        #expect(refused as? APIError == .certificateDateInvalid(host: "127.0.0.1", reason: "certificate has expired"), "\(String(describing: refused))")
        #expect(sync.status == 1, "\(sync.all)")
        let error = sync.summary()["error"] as? [String: Any]
        #expect((error?["message"] as? String)?.contains("Check this machine's clock") == true, "\(sync.all)")
        #expect((error?["hint"] as? String)?.contains("caBundle") == false, "\(sync.all)")
    }

    /// The `summary` events a `--json` loop printed so far, in order.
    static func summaries(_ stdout: String) -> [[String: Any]] {
        stdout.split(separator: "\n").compactMap { line in
            guard line.contains(#""type":"summary""#),
                  let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
            return object
        }
    }

    /// The error message of a summary ("" for none).
    static func message(_ summary: [String: Any]) -> String { (summary["error"] as? [String: Any])?["message"] as? String ?? "" }

    @Test("sync --every: a CA bundle rotated between runs is used by the next run; one that vanishes fails that run with an error naming it, and the loop goes on and recovers when it is back", .requires(.nginx, .openssl))
    func loopRereadsBundle() async throws {
        let setup = try await Setup()
        let other = try await TestCertificateAuthority.make(name: "Unrelated CA")
        defer { other.remove() }
        let bundle = setup.fixture.directory.appendingPathComponent("corp-ca.pem")
        try FileManager.default.copyItem(at: other.certificate, to: bundle) // the wrong CA first
        try setup.writeManifest(registry: #", "caBundle": "corp-ca.pem""#)
        let metrics = setup.fixture.directory.appendingPathComponent("sync.prom")
        let running = try setup.fixture.start(["sync", "--every", "1s", "--json", "--metrics-file", metrics.path])
        func summaries() -> [[String: Any]] { Self.summaries(running.out.text) }
        /// Waits for a summary after the first `after` ones that satisfies `condition`; returns how many there are then.
        func waitForSummary(after: Int, _ condition: @escaping ([String: Any]) -> Bool) async -> Int? {
            let seen = await running.waitForOutput(timeout: 60) { Self.summaries($0).dropFirst(after).contains(where: condition) }
            return seen ? summaries().count : nil
        }
        func replaceBundle(with source: URL) throws { // as an operator's tooling would: write, then rename over
            let temporary = bundle.appendingPathExtension("new")
            try FileManager.default.copyItem(at: source, to: temporary)
            _ = rename(temporary.path, bundle.path)
        }

        // 1. The bundle holds another CA: the run fails, saying so.
        let wrong = await waitForSummary(after: 0) { Self.message($0).contains("does not hold the CA that issued it") }
        // 2. Rotated to the right CA: a later run succeeds.
        try replaceBundle(with: setup.ca.certificate)
        let rotated = await waitForSummary(after: wrong ?? 0) { $0["exitCode"] as? Int == 0 }
        let installedAfterRotation = setup.fixture.isInstalledIntact("alpha")
        // 3. The bundle vanishes: a run fails naming it; the loop goes on.
        try FileManager.default.removeItem(at: bundle)
        let vanished = await waitForSummary(after: rotated ?? 0) { Self.message($0).contains("corp-ca.pem does not exist") }
        let stderrWhileGone = running.err.text
        // Every run fails alike until it is back; the metrics file is written after the summary
        // is printed, so wait for a failed run's file rather than read the one before it.
        var metricsWhileGone = ""
        for _ in 0..<600 {
            metricsWhileGone = (try? String(contentsOf: metrics, encoding: .utf8)) ?? ""
            if metricsWhileGone.split(separator: "\n").contains(where: { $0.hasPrefix("manashiki_sync_last_run_exit_code{") && $0.hasSuffix("} 1") }) { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        // 4. Back: a later run succeeds again.
        try replaceBundle(with: setup.ca.certificate)
        let recovered = await waitForSummary(after: vanished ?? 0) { $0["exitCode"] as? Int == 0 }
        running.send(SIGTERM)
        let result = await running.finish()
        await setup.stop()

        #expect(wrong != nil, "no run reported the wrong CA: \(result.all)")
        #expect(rotated != nil, "the rotated bundle was not picked up: \(result.all)")
        #expect(installedAfterRotation)
        #expect(vanished != nil, "no run reported the missing bundle: \(result.all)")
        #expect(recovered != nil, "the loop did not recover when the bundle came back: \(result.all)")
        if let failed = summaries().first(where: { Self.message($0).contains("does not exist") }) {
            #expect(failed["exitCode"] as? Int == 1, "\(failed)")
            #expect(((failed["error"] as? [String: Any])?["hint"] as? String)?.contains("restore the file") == true, "\(failed)")
        }
        #expect(stderrWhileGone.contains("this run cannot verify the registry: the CA bundle \(bundle.path) does not exist — restore the file"), "\(stderrWhileGone)")
        #expect([0, 143].contains(result.status), "exit \(result.status): \(result.all)")
        #expect(!result.all.contains(Fixture.key))
        // The metrics say the run failed, and keep the last success (the rotated bundle's run).
        let lines = metricsWhileGone.split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("manashiki_sync_last_run_exit_code{") && $0.hasSuffix("} 1") }, "\(metricsWhileGone)")
        #expect(lines.contains { $0.contains(#"outcome="failed"} 1"#) }, "\(metricsWhileGone)")
        #expect(lines.contains { $0.hasPrefix("manashiki_sync_last_success_timestamp_seconds{") && !$0.hasSuffix("} 0") }, "\(metricsWhileGone)")
    }
}
#endif

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Manashiki
import ManashikiCore
import ManashikiRegistry
import ManashikiTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `trust.tuf` end to end with real parts: a TUF repository made by python-tuf, served by nginx,
/// the artifacts by the development registry, the built `manashiki-sync`. A compromised
/// registry or repository (every attack of issue 35) installs nothing and leaves the previous
/// file intact.
@Suite("Signed models (trust.tuf): python-tuf repository behind nginx, the development registry, the built binary",
       .requires(.pythonTUF, .pythonCryptography, .nginx))
struct SignedModelsTests {
    /// A registry with alpha and beta, a python-tuf repository, nginx serving its metadata, and
    /// a manifest pinning its first root.
    final class World: @unchecked Sendable {
        let fixture: Fixture
        let repo: PythonTUFRepository
        let nginx: NginxMirror

        init(nginxServer: String? = nil) async throws {
            fixture = try Fixture(models: ["alpha"])
            repo = try PythonTUFRepository()
            let root = repo.metadataDirectory.path
            nginx = try await NginxMirror(server: nginxServer.map { "root \(root);\n    \($0)" } ?? "root \(root);")
            try repo.initialRoot.write(to: fixture.directory.appendingPathComponent("root.json"))
        }

        func stop() async { await nginx.stop() }

        /// The signed target of `id` as the registry serves it now (or with `sha256`).
        func target(_ id: String, version: String? = nil, sha256: String? = nil) -> [String: Any] {
            let v = version ?? fixture.registry.version(modelId: id) ?? "?"
            return ["path": "models/\(id)/\(v).bin", "length": fixture.registry.size(modelId: id) ?? 0,
                    "sha256": sha256 ?? fixture.registry.sha256(modelId: id)]
        }

        /// Signs `targets` (a new targets, snapshot and timestamp version).
        func sign(_ targets: [[String: Any]]) throws { try repo.publish(["targets": ["add": targets]]) }

        /// `manashiki.json` for `models` (raw entries) with `trust.tuf`.
        func manifest(_ entries: [String], metadataURL: String? = nil) throws {
            var text = TestManifest.text(baseURL: fixture.registry.apiBaseURL, store: "models", models: [], extraEntries: entries)
            let trust = #""trust": {"tuf": {"metadataURL": "\#(metadataURL ?? nginx.baseURL)/", "root": {"file": "root.json"}}},"#
            text = text.replacingOccurrences(of: #"{"schemaVersion": 1,"#, with: #"{"schemaVersion": 1, "# + trust)
            try Data(text.utf8).write(to: fixture.manifestURL)
        }

        func sync(_ extra: [String] = [], executable: URL? = nil, prefix: [String] = []) async throws -> ChildResult {
            guard let executable else { return try await fixture.run(["sync", "--json"] + extra) }
            return try await CLIProcess.run(prefix + [CLIProcess.binary.path, "sync", "--json"] + extra, executable: executable,
                                            environment: fixture.environment, in: fixture.directory)
        }

        var metadata: URL { fixture.store.appendingPathComponent(".manashiki/tuf/metadata") }
    }

    /// A model's refusal as `sync --json` reports it: the `trustRefusal` object's fields (by
    /// type, never the message's words) and the error's `kind`.
    struct Refusal: Equatable, CustomStringConvertible {
        var mechanism: String?
        /// `not-signed`, `mismatch`, `rollback`, `expired`, `metadata`, `unavailable`.
        var reason: String?
        /// The TUF role (`timestamp`, `targets`, a delegated role).
        var role: String?
        /// The TUF client's finer code (`rollback`, `threshold`, `too-large`…); nil when TUF's
        /// metadata did not refuse (a digest mismatch, a model downgrade).
        var problem: String?
        /// `terminal` or `retryable`.
        var kind: String?
        var description: String { "\(mechanism ?? "-")/\(reason ?? "-") role \(role ?? "-") problem \(problem ?? "-") (\(kind ?? "-"))" }
    }

    /// The refusal of `id` in a `--json` summary, nil when it has no `trustRefusal`.
    static func refusal(_ result: ChildResult, _ id: String) -> Refusal? {
        guard let model = result.summaryModel(id), let fields = model["trustRefusal"] as? [String: Any] else { return nil }
        return Refusal(mechanism: fields["mechanism"] as? String, reason: fields["reason"] as? String, role: fields["role"] as? String,
                       problem: fields["problem"] as? String, kind: (model["error"] as? [String: Any])?["kind"] as? String)
    }

    @Test("only signed models install: an unsigned one is refused (exit 3) with the role and reason in --json; trusted metadata is kept in the store")
    func signedSync() async throws {
        let w = try await World()
        defer { Task { await w.stop() } }
        try w.sign([w.target("alpha")])
        try w.manifest([#"{"id": "alpha"}"#, #"{"id": "beta"}"#])
        let result = try await w.sync()
        #expect(result.status == 3, "\(result.all)")
        #expect(w.fixture.isInstalledIntact("alpha"))
        #expect(w.fixture.installed("beta") == nil)
        let refusal = try #require(Self.refusal(result, "beta"), "\(result.stdout)")
        #expect(refusal == Refusal(mechanism: "tuf", reason: "not-signed", role: "targets", problem: "target-not-found", kind: "terminal"))
        #expect(FileManager.default.fileExists(atPath: w.metadata.appendingPathComponent("timestamp.json").path))
        // No request for beta's bytes was made: trust decides before a byte is fetched.
        #expect(!w.fixture.registry.requestLog().contains { $0.path.contains("beta") && $0.path.contains("/blobs/") })
    }

    @Test("status and the metrics file show each role's trusted version and expiry; a timestamp near expiry warns; refusals are counted by reason",
          .requires(.promtool))
    func operations() async throws {
        let w = try await World()
        defer { Task { await w.stop() } }
        // The timestamp expires in 6 hours, under status's 12-hour threshold; the others in a year.
        let soon = Date().addingTimeInterval(6 * 3600)
        try w.repo.publish(["targets": ["add": [w.target("alpha")]], "expires": ["timestamp": TUFTimeText.format(soon)]])
        try w.manifest([#"{"id": "alpha"}"#, #"{"id": "beta"}"#])
        let never = try await w.fixture.run(["status", "--json"])
        let unverified = try #require(never.summary()["tuf"] as? [String: Any], "\(never.stdout)")
        #expect((unverified["roles"] as? [Any])?.isEmpty == true && unverified["metadataURL"] as? String == w.nginx.baseURL + "/")
        #expect(try await w.fixture.run(["status"]).stdout.contains("Signed metadata (trust.tuf) from \(w.nginx.baseURL)/: not verified yet"))

        let textfile = w.fixture.directory.appendingPathComponent("textfile", isDirectory: true)
        try FileManager.default.createDirectory(at: textfile, withIntermediateDirectories: true)
        let result = try await w.sync(["--metrics-file", "textfile/trust.prom"])
        #expect(result.status == 3, "\(result.all)")
        let m = MetricsFileTests.samples(try await MetricsFileTests.checkedText(textfile.appendingPathComponent("trust.prom")))
        for reason in TrustRefusal.reasonCodes {
            #expect(m[#"manashiki_sync_last_run_trust_refusals{reason="\#(reason)"}"#] == (reason == "not-signed" ? 1 : 0), "\(reason)")
        }
        let expires = Double(Int64(soon.timeIntervalSince1970.rounded(.down)))
        #expect(m[#"manashiki_sync_tuf_metadata_version{role="timestamp"}"#] == 2 && m[#"manashiki_sync_tuf_metadata_version{role="root"}"#] == 1)
        #expect(m[#"manashiki_sync_tuf_metadata_expires_timestamp_seconds{role="timestamp"}"#] == expires)
        let lastRun = try #require(m["manashiki_sync_last_run_timestamp_seconds"])
        for role in TUFTrustedState.roleNames {
            let until = try #require(m[#"manashiki_sync_tuf_metadata_expiry_seconds{role="\#(role)"}"#], "\(role)")
            #expect(until == m[#"manashiki_sync_tuf_metadata_expires_timestamp_seconds{role="\#(role)"}"#].map { $0 - lastRun }, "\(role)")
        }

        let status = try await w.fixture.run(["status", "--json"])
        let tuf = try #require(status.summary()["tuf"] as? [String: Any], "\(status.stdout)")
        let roles = try #require(tuf["roles"] as? [[String: Any]])
        #expect(roles.compactMap { $0["role"] as? String } == TUFTrustedState.roleNames)
        let timestamp = try #require(roles.first { $0["role"] as? String == "timestamp" })
        #expect(timestamp["version"] as? Int == 2 && timestamp["expires"] as? String == TUFTimeText.format(soon).replacingOccurrences(of: "Z", with: ".000Z"))
        #expect(timestamp["expiringSoon"] as? Bool == true && timestamp["expired"] as? Bool == false)
        #expect(roles.filter { $0["expiringSoon"] as? Bool == true }.count == 1, "only the timestamp is near its expiry")
        #expect(tuf["warningThresholdSeconds"] as? Int == Int(TUFTrustedState.expiryWarningInterval) && tuf["lastCheck"] is String)
        #expect((tuf["warnings"] as? [String])?.count == 1)
        let text = try await w.fixture.run(["status"])
        #expect(text.stdoutLines.contains { $0.hasPrefix("timestamp ") && $0.contains(" 2 ") && $0.contains("h") }, "\(text.stdout)")
        #expect(text.stdoutLines.contains { $0.hasPrefix("Warning: the signed timestamp (v2) expires in") && $0.contains("12 h warning threshold") }, "\(text.stdout)")
    }

    /// The `signed.version` of the metadata file at `url`; nil when it is absent or not whole JSON.
    static func version(_ url: URL) -> Int? {
        guard let data = try? Data(contentsOf: url), let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return (object["signed"] as? [String: Any])?["version"] as? Int
    }

    @Test("kill -9 during a metadata refresh (the new timestamp stored, the snapshot still arriving) leaves usable metadata: the next run completes it, a rollback is still refused")
    func killDuringRefresh() async throws {
        let w = try await World()
        defer { Task { await w.stop() } }
        // A second nginx on the same metadata sends snapshot.json at 16 bytes a second: the
        // refresh is held between storing the new timestamp and fetching the snapshot.
        let slow = try await NginxMirror(server: "root \(w.repo.metadataDirectory.path);\n    location = /snapshot.json { limit_rate 16; }")
        defer { Task { await slow.stop() } }
        try w.sign([w.target("alpha")])                          // version 2 of targets, snapshot, timestamp
        try w.manifest([#"{"id": "alpha"}"#])
        #expect(try await w.sync().status == 0)
        let metadata = w.metadata
        let stored: @Sendable (String) -> Int? = { role in Self.version(metadata.appendingPathComponent("\(role).json")) }
        #expect(stored("timestamp") == 2 && stored("snapshot") == 2)

        try w.sign([w.target("alpha"), w.target("beta")])       // version 3
        try w.manifest([#"{"id": "alpha"}"#, #"{"id": "beta"}"#], metadataURL: slow.baseURL)
        let running = try w.fixture.start(["sync", "--json"])
        let killed = await running.send(SIGKILL, when: { stored("timestamp") == 3 })
        let result = await running.finish()
        #expect(killed && result.signalled && result.status == SIGKILL, "\(result.all)")
        // Killed mid-refresh: the new timestamp trusted, the snapshot still the old one, every
        // file whole (the durable writes leave no half file under a final name).
        #expect(stored("timestamp") == 3 && stored("snapshot") == 2 && stored("targets") == 2)
        let files = try FileManager.default.contentsOfDirectory(atPath: w.metadata.path).filter { $0.hasSuffix(".json") }
        #expect(files.allSatisfy { Self.version(w.metadata.appendingPathComponent($0)) != nil }, "\(files)")
        #expect(w.fixture.installed("beta") == nil && w.fixture.isInstalledIntact("alpha"))

        // The repository (or an attacker) serves the timestamp the store trusted before the kill:
        // a rollback from the timestamp the killed run stored, refused.
        try w.manifest([#"{"id": "alpha"}"#, #"{"id": "beta"}"#])
        let current = try w.repo.file("timestamp.json")
        try w.repo.replace("timestamp.json", with: try w.repo.file("2.timestamp.json"))
        let rolledBack = try await w.sync()
        #expect(Self.refusal(rolledBack, "beta") == Refusal(mechanism: "tuf", reason: "metadata", role: "timestamp", problem: "rollback", kind: "terminal"),
                "\(rolledBack.all)")
        #expect(w.fixture.installed("beta") == nil && w.fixture.isInstalledIntact("alpha") && stored("timestamp") == 3)

        // The current metadata again: the next run completes the refresh and installs beta.
        try w.repo.replace("timestamp.json", with: current)
        let next = try await w.sync()
        #expect(next.status == 0, "\(next.all)")
        #expect(w.fixture.isInstalledIntact("beta") && w.fixture.isInstalledIntact("alpha"))
        #expect(stored("timestamp") == 3 && stored("snapshot") == 3 && stored("targets") == 3)
    }

    /// One attack: what the repository (or registry) is made to serve, and how `--json`'s
    /// `trustRefusal` must name the refusal: its reason, the role, and the TUF client's problem
    /// code (nil: not a refusal of the metadata).
    struct Attack: CustomTestStringConvertible, Sendable {
        let name: String
        let reason: String
        /// The role that refuses (the spec catches some attacks at an earlier role than the one
        /// attacked: rolled-back targets are refused when the snapshot lists a lower version).
        let role: String
        let problem: String?
        let apply: @Sendable (World) throws -> Void
        var testDescription: String { name }
    }

    static let attacks: [Attack] = [
        Attack(name: "a target whose digest differs from the registry's", reason: "mismatch", role: "targets", problem: nil) { w in
            try w.sign([w.target("beta", sha256: String(repeating: "ab", count: 32))])
        },
        Attack(name: "a rolled-back timestamp", reason: "metadata", role: "timestamp", problem: "rollback") { w in
            try w.repo.replace("timestamp.json", with: try w.repo.file("2.timestamp.json"))
        },
        Attack(name: "a rolled-back snapshot", reason: "metadata", role: "snapshot", problem: "rollback") { w in
            try w.repo.publish(["roles": ["snapshot", "timestamp"], "version": ["snapshot": 2]])
        },
        Attack(name: "rolled-back targets", reason: "metadata", role: "targets", problem: "rollback") { w in
            try w.repo.publish(["roles": ["targets", "snapshot", "timestamp"], "version": ["targets": 2]])
        },
        Attack(name: "an expired timestamp", reason: "expired", role: "timestamp", problem: "expired") { w in
            try w.repo.publish(["roles": ["timestamp"], "expires": ["timestamp": "2021-06-01T00:00:00Z"]])
        },
        Attack(name: "a root rotation with too few old signatures", reason: "metadata", role: "root", problem: "threshold") { w in
            try w.repo.rotate(["role": "root", "signOld": [String]()])
        },
        // The same signature twice is refused before any is counted (two signatures naming one
        // key id); the unit tests count a key once however many key ids name it.
        Attack(name: "a duplicated signature used to reach a threshold", reason: "metadata", role: "timestamp", problem: "malformed") { w in
            // A legitimate rotation first: the timestamp needs 2 of 2 keys; then one key's
            // signature twice.
            try w.repo.rotate(["role": "timestamp", "keys": 2, "threshold": 2])
            let one = try #require(try w.repo.keyids()["timestamp"]?.first)
            try w.repo.publish(["roles": ["timestamp"], "signWith": ["timestamp": [one]], "duplicateSignature": "timestamp"])
        },
        // The search visits a and b once each and finds no role listing beta's path.
        Attack(name: "a delegation cycle", reason: "not-signed", role: "targets", problem: "target-not-found") { w in
            try w.repo.publish(["delegate": [["name": "a", "paths": ["models/beta/*"]], ["name": "b", "from": "a", "paths": ["models/beta/*"]]]])
            try w.repo.publish(["delegate": [["name": "a", "from": "b", "paths": ["models/beta/*"]]]])
        },
        Attack(name: "metadata larger than its limit", reason: "metadata", role: "timestamp", problem: "too-large") { w in
            var big = try w.repo.file("timestamp.json")
            big.append(Data(repeating: 0x20, count: 16_384))
            try w.repo.replace("timestamp.json", with: big)
        },
    ]

    @Test("each attack is refused: nothing installed, the installed file intact, the role and reason named", arguments: attacks)
    func attack(_ attack: Attack) async throws {
        let w = try await World()
        defer { Task { await w.stop() } }
        try w.sign([w.target("alpha")])
        try w.sign([w.target("alpha")])        // trusted: version 3 of targets, snapshot, timestamp
        try w.manifest([#"{"id": "alpha"}"#])
        let first = try await w.sync()
        #expect(first.status == 0 && w.fixture.isInstalledIntact("alpha"), "\(first.all)")

        try attack.apply(w)
        try w.manifest([#"{"id": "alpha"}"#, #"{"id": "beta"}"#])
        let result = try await w.sync()
        #expect(result.status != 0, "\(attack.name): \(result.all)")
        #expect(w.fixture.isInstalledIntact("alpha"), "\(attack.name)")
        #expect(w.fixture.installed("beta") == nil, "\(attack.name)")
        let refusal = try #require(Self.refusal(result, "beta"), "\(attack.name): \(result.stdout)")
        #expect(refusal == Refusal(mechanism: "tuf", reason: attack.reason, role: attack.role, problem: attack.problem, kind: "terminal"),
                "\(attack.name): a trust refusal names its role and reason and is not retried")
        if attack.reason == "mismatch" {
            let message = (Self.refusalError(result, "beta")) ?? ""
            #expect(message.contains(String(repeating: "ab", count: 32)) && message.contains(w.fixture.registry.sha256(modelId: "beta")), "\(message)")
        }
        if attack.reason == "expired" {
            #expect((Self.refusalError(result, "beta") ?? "").contains("timestamp metadata expired at 2021-06-01T00:00:00Z"))
        }
    }

    static func refusalError(_ result: ChildResult, _ id: String) -> String? {
        (result.summaryModel(id)?["error"] as? [String: Any])?["message"] as? String
    }

    @Test("a downgrade of one model is refused unless the manifest pins that version exactly")
    func downgrade() async throws {
        let w = try await World()
        defer { Task { await w.stop() } }
        let old = w.target("alpha")
        try w.fixture.registry.publish(modelId: "alpha", version: "2.0.0", artifact: .generated(size: 64 << 10, seed: 201))
        try w.sign([old, w.target("alpha")])
        try w.manifest([#"{"id": "alpha"}"#])
        #expect(try await w.sync().status == 0)
        let newer = try #require(w.fixture.installed("alpha"))
        // The registry is made to serve 1.0.0 again (signed once, still listed); the file and
        // the store's state are lost (a restore, a wiped disk): only the high-water mark remains.
        try w.fixture.registry.publish(modelId: "alpha", version: "1.0.0", artifact: .generated(size: 64 << 10, seed: 101))
        try FileManager.default.removeItem(at: w.fixture.modelFile("alpha"))
        try FileManager.default.removeItem(at: w.fixture.store.appendingPathComponent(".manashiki/state.json"))
        let refused = try await w.sync()
        #expect(refused.status != 0, "\(refused.all)")
        #expect(Self.refusal(refused, "alpha") == Refusal(mechanism: "tuf", reason: "rollback", role: nil, problem: nil, kind: "terminal"), "\(refused.stdout)")
        #expect(w.fixture.installed("alpha") == nil)

        try w.manifest([#"{"id": "alpha", "version": "1.0.0"}"#])
        let pinned = try await w.sync()
        #expect(pinned.status == 0, "\(pinned.all)")
        #expect(w.fixture.isInstalledIntact("alpha") && w.fixture.installed("alpha") != newer)
    }

    @Test("expired metadata stops new installs even with the clock set back; the installed model stays", .requires(.faketime))
    func clockSetBack() async throws {
        let w = try await World()
        defer { Task { await w.stop() } }
        let soon = Date().addingTimeInterval(2 * 86_400)
        try w.repo.publish(["targets": ["add": [w.target("alpha"), w.target("beta")]], "expires": ["timestamp": TUFTimeText.format(soon)]])
        try w.manifest([#"{"id": "alpha"}"#])
        #expect(try await w.sync().status == 0)
        try w.manifest([#"{"id": "alpha"}"#, #"{"id": "beta"}"#])
        let faketime = try Peer.faketime.require()
        // Three days on: the timestamp expired.
        let later = try await w.sync(executable: faketime, prefix: ["-f", "+3d"])
        let expired = Refusal(mechanism: "tuf", reason: "expired", role: "timestamp", problem: "expired", kind: "terminal")
        #expect(Self.refusal(later, "beta") == expired, "\(later.all)")
        // The clock set back to now: still expired (the store already checked trust three days on).
        let back = try await w.sync()
        #expect(Self.refusal(back, "beta") == expired, "\(back.all)")
        #expect(w.fixture.installed("beta") == nil && w.fixture.isInstalledIntact("alpha"))
        let verify = try await w.fixture.run(["verify"])
        #expect(verify.status == 0, "\(verify.all)")
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ`, as TUF's `expires`.
enum TUFTimeText {
    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
    }
}
#endif

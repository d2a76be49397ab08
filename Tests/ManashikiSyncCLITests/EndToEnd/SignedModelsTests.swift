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

    /// The refusal of `id` in a `--json` summary: its reason, read from the error's words (the
    /// structured `trustRefusal` object arrives with #36 stage 4), with `role` the message's
    /// role name and `kind` the error's kind.
    static func refusal(_ result: ChildResult, _ id: String) -> [String: Any]? {
        guard let error = result.summaryModel(id)?["error"] as? [String: Any], let message = error["message"] as? String else { return nil }
        let reasons: [(String, String)] = [("is not signed (tuf)", "not-signed"), ("the signed artifact is sha256", "mismatch"),
                                           ("the highest version installed with trust", "rollback"), ("metadata expired at", "expired"),
                                           ("the signed metadata was refused", "metadata")]
        guard let reason = reasons.first(where: { message.contains($0.0) })?.1 else { return nil }
        let role = ["root", "timestamp", "snapshot", "targets"].first { message.contains("metadata \($0)") || message.contains("signed \($0)") }
        return ["reason": reason, "role": role ?? (reason == "not-signed" || reason == "mismatch" ? "targets" : "-"), "kind": error["kind"] ?? "-"]
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
        #expect(refusal["reason"] as? String == "not-signed" && refusal["kind"] as? String == "terminal")
        #expect(FileManager.default.fileExists(atPath: w.metadata.appendingPathComponent("timestamp.json").path))
        // No request for beta's bytes was made: trust decides before a byte is fetched.
        #expect(!w.fixture.registry.requestLog().contains { $0.path.contains("beta") && $0.path.contains("/blobs/") })
    }

    /// One attack: what the repository (or registry) is made to serve, and what the refusal says.
    struct Attack: CustomTestStringConvertible, Sendable {
        let name: String
        /// The reasons that may refuse it (the spec catches some attacks at an earlier role:
        /// rolled-back targets are refused when the snapshot lists a lower version).
        let reasons: Set<String>
        let roles: Set<String>
        let apply: @Sendable (World) throws -> Void
        var testDescription: String { name }
    }

    static let attacks: [Attack] = [
        Attack(name: "a target whose digest differs from the registry's", reasons: ["mismatch"], roles: ["targets"]) { w in
            try w.sign([w.target("beta", sha256: String(repeating: "ab", count: 32))])
        },
        Attack(name: "a rolled-back timestamp", reasons: ["metadata"], roles: ["timestamp"]) { w in
            try w.repo.replace("timestamp.json", with: try w.repo.file("2.timestamp.json"))
        },
        Attack(name: "a rolled-back snapshot", reasons: ["metadata"], roles: ["timestamp", "snapshot"]) { w in
            try w.repo.publish(["roles": ["snapshot", "timestamp"], "version": ["snapshot": 2]])
        },
        Attack(name: "rolled-back targets", reasons: ["metadata"], roles: ["snapshot", "targets"]) { w in
            try w.repo.publish(["roles": ["targets", "snapshot", "timestamp"], "version": ["targets": 2]])
        },
        Attack(name: "an expired timestamp", reasons: ["expired"], roles: ["timestamp"]) { w in
            try w.repo.publish(["roles": ["timestamp"], "expires": ["timestamp": "2021-06-01T00:00:00Z"]])
        },
        Attack(name: "a root rotation with too few old signatures", reasons: ["metadata"], roles: ["root"]) { w in
            try w.repo.rotate(["role": "root", "signOld": [String]()])
        },
        Attack(name: "a duplicated signature used to reach a threshold", reasons: ["metadata"], roles: ["timestamp"]) { w in
            // A legitimate rotation first: the timestamp needs 2 of 2 keys; then one key's
            // signature twice.
            try w.repo.rotate(["role": "timestamp", "keys": 2, "threshold": 2])
            let one = try #require(try w.repo.keyids()["timestamp"]?.first)
            try w.repo.publish(["roles": ["timestamp"], "signWith": ["timestamp": [one]], "duplicateSignature": "timestamp"])
        },
        Attack(name: "a delegation cycle", reasons: ["not-signed", "metadata"], roles: ["targets", "a", "b"]) { w in
            try w.repo.publish(["delegate": [["name": "a", "paths": ["models/beta/*"]], ["name": "b", "from": "a", "paths": ["models/beta/*"]]]])
            try w.repo.publish(["delegate": [["name": "a", "from": "b", "paths": ["models/beta/*"]]]])
        },
        Attack(name: "metadata larger than its limit", reasons: ["metadata"], roles: ["timestamp"]) { w in
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
        #expect(attack.reasons.contains(refusal["reason"] as? String ?? "-"), "\(attack.name): \(refusal)")
        #expect(attack.roles.contains(refusal["role"] as? String ?? "-") || !["metadata", "expired"].contains(refusal["reason"] as? String ?? ""),
                "\(attack.name): \(refusal)")
        #expect(refusal["kind"] as? String == "terminal", "\(attack.name): a trust refusal is not retried")
        if attack.reasons == ["mismatch"] {
            let message = (Self.refusalError(result, "beta")) ?? ""
            #expect(message.contains(String(repeating: "ab", count: 32)) && message.contains(w.fixture.registry.sha256(modelId: "beta")), "\(message)")
        }
        if attack.reasons == ["expired"] {
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
        #expect(Self.refusal(refused, "alpha")?["reason"] as? String == "rollback", "\(refused.stdout)")
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
        #expect(Self.refusal(later, "beta")?["reason"] as? String == "expired", "\(later.all)")
        // The clock set back to now: still expired (the store already checked trust three days on).
        let back = try await w.sync()
        #expect(Self.refusal(back, "beta")?["reason"] as? String == "expired", "\(back.all)")
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

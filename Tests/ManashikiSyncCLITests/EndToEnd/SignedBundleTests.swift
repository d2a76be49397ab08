#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Manashiki
import ManashikiTestSupport
import Testing

/// `trust.tuf` offline (#35 item 5), with the parts of `SignedModelsTests` (a python-tuf
/// repository behind nginx, the development registry, the built binary): `export` carries the
/// metadata chain the store trusts, and a machine with no network verifies a bundle against the
/// root pinned in its own manifest. One world for every step: a few seconds of CI.
@Suite("Signed bundles (trust.tuf offline): export carries the metadata chain, sync --offline verifies it against the pinned root",
       .requires(.pythonTUF, .pythonCryptography, .nginx))
struct SignedBundleTests {
    typealias World = SignedModelsTests.World

    /// One way a carried copy of the metadata is tampered with, and the words of its refusal.
    struct Tamper: Sendable {
        let name: String
        /// Read by a store that trusts no metadata yet (a store that does reads its own copy of
        /// every role whose version is unchanged, so a changed file of that version is never read).
        var fresh = false
        /// What the refusal's message says (the role and the reason).
        let says: [String]
        let apply: @Sendable (_ tuf: URL, _ old: [String: Data], _ w: World) throws -> Void
    }

    static let tampers: [Tamper] = [
        Tamper(name: "a changed targets file", fresh: true, says: ["TUF metadata targets", "refused"]) { tuf, _, _ in
            for name in try FileManager.default.contentsOfDirectory(atPath: tuf.path) where name.hasSuffix("targets.json") {
                let file = tuf.appendingPathComponent(name)
                let text = try String(contentsOf: file, encoding: .utf8)
                // beta's length, one byte more: still JSON, no longer what was signed.
                try Data(text.replacingOccurrences(of: #""length": 131072"#, with: #""length": 131073"#).utf8).write(to: file)
            }
        },
        Tamper(name: "a rolled-back timestamp and snapshot", says: ["timestamp", "older than the trusted version"]) { tuf, old, _ in
            for (name, data) in old { try data.write(to: tuf.appendingPathComponent(name)) }
        },
        Tamper(name: "an expired timestamp, validly signed", says: ["timestamp metadata expired at 2021-06-01T00:00:00Z"]) { tuf, _, w in
            try w.repo.publish(["roles": ["timestamp"], "expires": ["timestamp": "2021-06-01T00:00:00Z"]])
            try w.repo.file("timestamp.json").write(to: tuf.appendingPathComponent("timestamp.json"))
        },
        Tamper(name: "no metadata in the bundle", says: ["no bundle source carries signed metadata"]) { tuf, _, _ in
            try FileManager.default.removeItem(at: tuf)
        },
    ]

    @Test("export copies the chain (every root from the pinned one up); a machine with no network installs from it; each tampered copy is refused with nothing installed and the installed file intact")
    func offlineBundle() async throws {
        let w = try await World()
        defer { Task { await w.stop() } }
        // A legitimate root rotation: the offline machine, pinned at root 1, must walk to root 2.
        try w.repo.rotate(["role": "timestamp"])
        try w.sign([w.target("alpha")])
        let old = ["timestamp.json": try w.repo.file("timestamp.json"), "snapshot.json": try w.repo.file("snapshot.json")]
        try w.sign([w.target("alpha"), w.target("beta")])
        try w.manifest([#"{"id": "alpha"}"#, #"{"id": "beta"}"#])
        let online = try await w.sync()
        #expect(online.status == 0, "\(online.all)")

        // No trusted metadata yet in another store: export refuses rather than write a bundle
        // an offline machine could verify nothing from.
        let empty = try Self.machine(w, "empty", models: ["alpha"])
        let refused = try await CLIProcess.run(["export", "bundle"], environment: [:], in: empty)
        #expect(refused.status == 1 && refused.stderr.contains("holds no trusted signed metadata"), "\(refused.all)")

        let bundle = w.fixture.directory.appendingPathComponent("bundle")
        let export = try await w.fixture.run(["export", bundle.path, "--json"])
        #expect(export.status == 0, "\(export.all)")
        let signed = try #require(export.summary()["signedMetadata"] as? [String: Any], "\(export.stdout)")
        #expect(signed["rootVersions"] as? [Int] == [1, 2], "\(signed)")
        let tuf = bundle.appendingPathComponent("tuf")
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: tuf.path))
        #expect(names.isSuperset(of: ["1.root.json", "2.root.json", "timestamp.json", "snapshot.json", "targets.json"]), "\(names)")
        #expect(!names.contains("root.json"), "a reader starts from its own pinned root")

        // The offline machine: nginx stopped, nothing asked of the registry.
        await w.nginx.stop()
        let asked = w.fixture.registry.requestLog().count
        let second = try Self.machine(w, "second", models: ["alpha"])
        let offline = try await CLIProcess.run(["sync", "--offline", "--from", bundle.path, "--json"], environment: [:], in: second)
        #expect(offline.status == 0, "\(offline.all)")
        #expect(Self.installed(second, "alpha") == w.fixture.registry.artifactBytes(modelId: "alpha"))
        #expect(w.fixture.registry.requestLog().count == asked)

        for tamper in Self.tampers {
            let copy = w.fixture.directory.appendingPathComponent("bundle-\(tamper.name.replacingOccurrences(of: " ", with: "-"))")
            try FileManager.default.copyItem(at: bundle, to: copy)
            try tamper.apply(copy.appendingPathComponent("tuf"), old, w)
            let machine = try Self.machine(w, tamper.fresh ? "fresh" : "second", models: ["alpha", "beta"])
            let result = try await CLIProcess.run(["sync", "--offline", "--from", copy.path, "--json"], environment: [:], in: machine)
            #expect(result.status != 0, "\(tamper.name): \(result.all)")
            #expect(Self.installed(machine, "beta") == nil, "\(tamper.name)")
            let alpha = tamper.fresh ? nil : w.fixture.registry.artifactBytes(modelId: "alpha")
            #expect(Self.installed(machine, "alpha") == alpha, "\(tamper.name): the installed file stays, nothing new installs")
            let message = SignedModelsTests.refusalError(result, "beta") ?? ""
            #expect(tamper.says.allSatisfy(message.contains), "\(tamper.name): \(message)")
        }
    }

    @Test("with trust.tuf, lock refuses a model the signed repository does not vouch for and records the metadata versions it checked against; sync --locked installs from it, and refuses it once the signed digest disagrees with the lock's")
    func lockRecordsVersions() async throws {
        let w = try await World()
        defer { Task { await w.stop() } }
        try w.sign([w.target("alpha")])
        try w.manifest([#"{"id": "alpha"}"#, #"{"id": "beta"}"#])
        let lockURL = w.fixture.directory.appendingPathComponent("manashiki.lock.json")
        let refused = try await w.fixture.run(["lock"])
        #expect(refused.status == 1 && refused.stderr.contains("beta") && refused.stderr.contains("is not signed (tuf)"), "\(refused.all)")
        #expect(!FileManager.default.fileExists(atPath: lockURL.path), "nothing written")

        try w.manifest([#"{"id": "alpha"}"#])
        let locked = try await w.fixture.run(["lock"])
        #expect(locked.status == 0, "\(locked.all)")
        let lock = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: lockURL)) as? [String: Any])
        #expect(lock["formatVersion"] as? Int == 1)
        #expect(lock["signedMetadata"] as? [String: Int] == ["root": 1, "timestamp": 2, "snapshot": 2, "targets": 2], "\(lock)")
        let sync = try await w.sync(["--locked"])
        #expect(sync.status == 0 && w.fixture.isInstalledIntact("alpha"), "\(sync.all)")

        // The publisher's metadata now signs another digest for alpha: the lock's pin disagrees
        // with the signed one, and sync --locked refuses it naming both; the installed file stays.
        let installed = try #require(w.fixture.installed("alpha"))
        try w.sign([w.target("alpha", sha256: String(repeating: "ab", count: 32))])
        let disagreeing = try await w.sync(["--locked"])
        let refusal = SignedModelsTests.refusal(disagreeing, "alpha")
        #expect(disagreeing.status != 0 && refusal?.mechanism == "tuf" && refusal?.reason == "mismatch" && refusal?.kind == "terminal", "\(disagreeing.all)")
        #expect(w.fixture.installed("alpha") == installed)
    }

    /// A machine with its own store and `manashiki.json` pinning the repository's first root.
    static func machine(_ w: World, _ name: String, models: [String]) throws -> URL {
        let root = w.fixture.directory.appendingPathComponent("root.json").path
        return try FleetTests.secondMachine(w.fixture, name, models: models,
                                            extra: #""trust": {"tuf": {"metadataURL": "\#(w.nginx.baseURL)/", "root": {"file": "\#(root)"}}},"#)
    }

    static func installed(_ dir: URL, _ id: String) -> Data? { FleetTests.installed(dir, id) }
}
#endif

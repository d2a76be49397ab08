#if os(Linux) || os(macOS) // python-tuf and nginx run as child processes (ManashikiProcess: Linux and macOS)
import Foundation
import Manashiki
import ManashikiCore
import ManashikiRegistry
import ManashikiTestSupport
import Testing

/// `TUFTrust` in `DownloadOptions.trust`, with real parts: the publisher's repository made by
/// python-tuf and served by nginx, the artifacts by the development registry (a compromised one
/// in the attacks), `downloadModel` over loopback HTTP. Every refusal is decided by the
/// `TrustRefusal`'s fields, and leaves the installed file byte-identical with no transfer.
@Suite("TUFTrust: downloadModel with signed metadata (python-tuf behind nginx, the development registry)",
       .requires(.pythonTUF, .pythonCryptography, .nginx))
struct TUFTrustTests {
    /// A registry serving tiny 1.0.0, a python-tuf repository, nginx serving its metadata.
    final class World: @unchecked Sendable {
        let fixture: RegistryFixture
        let repo: PythonTUFRepository
        let nginx: NginxMirror
        var registry: DevelopmentRegistry { fixture.registry }

        init() async throws {
            fixture = try RegistryFixture(size: 64 << 10)
            repo = try PythonTUFRepository()
            nginx = try await NginxMirror(server: "root \(repo.metadataDirectory.path);")
        }

        func stop() async { await nginx.stop() }

        /// tiny's target as the registry serves it now (or with `sha256`).
        func target(version: String? = nil, sha256: String? = nil) -> [String: Any] {
            ["path": "models/tiny/\(version ?? registry.version(modelId: "tiny") ?? "?").bin",
             "length": registry.size(modelId: "tiny") ?? 0, "sha256": sha256 ?? registry.sha256(modelId: "tiny")]
        }

        /// Signs `targets` (new targets, snapshot and timestamp versions).
        func sign(_ targets: [[String: Any]]) throws { try repo.publish(["targets": ["add": targets]]) }

        /// The app's trust: the first root (as shipped in its bundle), nginx's metadata URL, the
        /// client's store.
        func trust(pinned: [String: String] = [:], marks: (any TrustHighWaterMarks)? = nil) throws -> TUFTrust {
            try TUFTrust(root: repo.initialRoot, metadataURL: try #require(URL(string: nginx.baseURL + "/")), store: fixture.storage.url,
                         highWaterMarks: marks, pinnedVersions: pinned)
        }

        func download(_ trust: TUFTrust) async throws -> DownloadedModel {
            var options = DownloadOptions()
            options.trust = ArtifactTrustChain([trust])
            return try await fixture.client().downloadModel("tiny", session: nil, expecting: nil, options: options)
        }

        /// The refusal of a download with `trust`, nil when it installed.
        func refusal(_ trust: TUFTrust) async throws -> TrustRefusal? {
            do { _ = try await download(trust); return nil } catch let refusal as TrustRefusal { return refusal }
        }

        /// Whether the storage origin sent any bytes since the log was cleared.
        var fetchedBytes: Bool { registry.requestLog().contains { $0.origin == .storage } }

        var layout: StoreLayout { StoreLayout(directory: fixture.storage.url) }
    }

    @Test("a model the repository signs with the registry's digest and length installs, with the TUF evidence; trusted metadata and the high-water mark are kept in the store")
    func installsSigned() async throws {
        let w = try await World()
        defer { Task { await w.stop() } }
        try w.sign([w.target()])
        let model = try await w.download(try w.trust())
        #expect(try Data(contentsOf: model.localURL) == w.registry.artifactBytes(modelId: "tiny"))
        let evidence = try #require(model.trust.first)
        #expect(evidence.mechanism == "tuf" && evidence.facts["target"] == "models/tiny/1.0.0.bin" && evidence.facts["timestamp"] == "2")
        #expect(FileManager.default.fileExists(atPath: w.layout.tufMetadataDirectory.appendingPathComponent("timestamp.json").path))
        #expect(FileHighWaterMarks(file: w.layout.trustHighWaterFile).highest("tiny") == "1.0.0")
    }

    @Test("a registry serving a version whose signed digest differs, or one the publisher never signed, is refused before a byte is fetched; the installed file stays")
    func refusesMismatchAndUnsigned() async throws {
        let w = try await World()
        defer { Task { await w.stop() } }
        try w.sign([w.target()])
        let trust = try w.trust()
        _ = try await w.download(trust)
        let previous = (try Data(contentsOf: w.fixture.installed), try w.fixture.inode(w.fixture.installed))

        // The registry (compromised) serves 1.1.0, which the publisher never signed.
        try w.registry.publish(modelId: "tiny", version: "1.1.0", artifact: .generated(size: 64 << 10, seed: 8))
        w.registry.clearRequestLog()
        let unsigned = try await w.refusal(trust)
        #expect(unsigned?.reason == .notSigned && unsigned?.mechanism == "tuf" && unsigned?.problemCode == "target-not-found", "\(String(describing: unsigned))")
        #expect(try w.fixture.previousIsIntact(previous) && !w.fetchedBytes)

        // The publisher signed other bytes as 1.1.0: the registry's digest is refused, naming both.
        let signed = String(repeating: "ab", count: 32)
        try w.sign([w.target(sha256: signed)])
        let mismatch = try await w.refusal(trust)
        guard case .mismatch(let signedText, let offered)? = mismatch?.reason else { Issue.record("\(String(describing: mismatch))"); return }
        #expect(signedText.contains(signed) && offered.contains(w.registry.sha256(modelId: "tiny")) && mismatch?.isRetryable == false)
        #expect(try w.fixture.previousIsIntact(previous) && !w.fetchedBytes)
    }

    @Test("after 1.1.0 installed with trust, the registry serving the signed 1.0.0 again is a refused rollback; pinnedVersions allows it on purpose")
    func refusesModelRollback() async throws {
        let w = try await World()
        defer { Task { await w.stop() } }
        let first = w.target()
        try w.sign([first])
        _ = try await w.download(try w.trust())
        try w.registry.publish(modelId: "tiny", version: "1.1.0", artifact: .generated(size: 64 << 10, seed: 8))
        try w.sign([first, w.target()])
        _ = try await w.download(try w.trust())
        let newer = (try Data(contentsOf: w.fixture.installed), try w.fixture.inode(w.fixture.installed))

        try w.registry.publish(modelId: "tiny", version: "1.0.0", artifact: .generated(size: 64 << 10, seed: 7))
        w.registry.clearRequestLog()
        let rollback = try await w.refusal(try w.trust())
        #expect(rollback?.reason == .rollback(highest: "1.1.0", offered: "1.0.0"), "\(String(describing: rollback))")
        #expect(try w.fixture.previousIsIntact(newer) && !w.fetchedBytes)

        let downgraded = try await w.download(try w.trust(pinned: ["tiny": "1.0.0"]))
        #expect(try Data(contentsOf: downgraded.localURL) == w.registry.artifactBytes(modelId: "tiny"))
        #expect(FileHighWaterMarks(file: w.layout.trustHighWaterFile).highest("tiny") == "1.1.0", "a downgrade does not lower the mark")
    }

    @Test("metadata that expired before the latest time already checked is refused (a clock set back does not help), and a rolled-back timestamp is refused by the TUF client")
    func refusesExpiredAndRolledBackMetadata() async throws {
        let w = try await World()
        defer { Task { await w.stop() } }
        try w.sign([w.target()])
        let marks = FileHighWaterMarks(file: w.layout.trustHighWaterFile)
        _ = try await w.download(try w.trust(marks: marks))
        let previous = (try Data(contentsOf: w.fixture.installed), try w.fixture.inode(w.fixture.installed))

        // Trust was checked two days ahead (the clock has since been set back); the timestamp
        // expires tomorrow, so it has expired at that reference time.
        let tomorrow = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 + 86_400).rounded(.down))
        try w.repo.publish(["roles": ["timestamp"], "expires": ["timestamp": Self.format(tomorrow)]])
        try marks.recordCheck(Date().addingTimeInterval(2 * 86_400))
        let expired = try await w.refusal(try w.trust(marks: marks))
        #expect(expired?.reason == .expired(role: "timestamp", at: tomorrow) && expired?.role == "timestamp", "\(String(describing: expired))")
        #expect(try w.fixture.previousIsIntact(previous))

        // A fresh store and marks: the repository serves an older timestamp than one already trusted.
        let fresh = ScratchDirectory("tuf-trust-fresh")
        let trust = try TUFTrust(root: w.repo.initialRoot, metadataURL: try #require(URL(string: w.nginx.baseURL + "/")), store: fresh.url)
        #expect(try await trust.refresh().timestampVersion == 3)
        try w.repo.replace("timestamp.json", with: try w.repo.file("2.timestamp.json"))
        await #expect(throws: TUFError(role: "timestamp", reason: .rollback(trusted: 3, offered: 2))) { _ = try await trust.refresh() }
    }

    @Test("a root that is not signed by its own threshold, and a plain-http metadata URL to another host, are refused when the trust is made")
    func refusesBadConfiguration() throws {
        let repo = try PythonTUFRepository()
        var object = try #require(try JSONSerialization.jsonObject(with: repo.initialRoot) as? [String: Any])
        object["signatures"] = []
        let unsigned = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: TUFError.self) { _ = try TUFTrust(root: unsigned, source: TUFDirectorySource(directory: repo.metadataDirectory)) }
        #expect(throws: APIError.self) {
            _ = try TUFTrust(root: repo.initialRoot, metadataURL: URL(string: "http://models.example.com/tuf/metadata/")!)
        }
    }

    /// `YYYY-MM-DDTHH:MM:SSZ`, as TUF's `expires`.
    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
#endif

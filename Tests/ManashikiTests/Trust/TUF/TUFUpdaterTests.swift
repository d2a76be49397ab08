#if os(Linux) || os(macOS) // python-tuf makes the repositories (ManashikiProcess: Linux and macOS)
import Foundation
import Manashiki
import ManashikiCore
import ManashikiTestSupport
import Testing

/// The TUF client against repositories python-tuf made (read from their directory, as an
/// offline bundle is): what verifies, and each attack refused with the trusted metadata unchanged.
@Suite("TUF client against python-tuf repositories", .requires(.pythonTUF, .pythonCryptography))
struct TUFUpdaterTests {
    let repo: PythonTUFRepository
    let local = ScratchDirectory("tuf-client")
    var store: TUFMetadataStore { TUFMetadataStore(directory: local.url) }

    init() throws { repo = try PythonTUFRepository() }

    func updater(now: Date = Date(), anchor: Data? = nil) -> TUFUpdater {
        TUFUpdater(anchor: anchor ?? repo.initialRoot, store: store, source: TUFDirectorySource(directory: repo.metadataDirectory), now: now)
    }

    func addModel(_ path: String, _ bytes: [UInt8], extra: [String: Any] = [:]) throws {
        var arguments = extra
        arguments["targets"] = ["add": [["path": path, "length": bytes.count, "sha256": DigestAlgorithm.sha256.hex(bytes)]]]
        try repo.publish(arguments)
    }

    func refusal(_ updater: TUFUpdater) async -> TUFError? {
        do { try await updater.refresh(); return nil } catch { return error }
    }

    @Test("a refresh trusts python-tuf's metadata; a target's length and SHA-256 are the signed ones")
    func refreshAndTarget() async throws {
        try addModel("models/tiny/1.0.0.bin", Array("abc".utf8))
        let u = updater()
        let summary = try await u.refresh()
        #expect(summary.rootVersion == 1 && summary.timestampVersion == 2 && summary.snapshotVersion == 2 && summary.targetsVersion == 2)
        let target = try await u.target("models/tiny/1.0.0.bin")
        #expect(target.length == 3 && target.sha256 == DigestAlgorithm.sha256.hex(Array("abc".utf8)))
        await #expect(throws: TUFError(role: "models/tiny/2.0.0.bin", reason: .targetNotFound)) { try await u.target("models/tiny/2.0.0.bin") }
        for name in ["root.json", "timestamp.json", "snapshot.json", "targets.json", "roots/1.root.json"] {
            #expect(FileManager.default.fileExists(atPath: local.file(name).path), "\(name) not stored")
        }
    }

    @Test("a rolled-back timestamp is refused; the trusted one stays")
    func timestampRollback() async throws {
        try addModel("a", [1])
        try await updater().refresh()
        let trusted = try Data(contentsOf: local.file("timestamp.json"))
        try repo.publish(["roles": ["timestamp"], "version": ["timestamp": 1]])
        let error = await refusal(updater())
        #expect(error?.role == "timestamp" && error?.reason == .rollback(trusted: 2, offered: 1))
        #expect(try Data(contentsOf: local.file("timestamp.json")) == trusted)
    }

    @Test("a rolled-back snapshot version in a newer timestamp is refused")
    func snapshotRollback() async throws {
        try addModel("a", [1])
        try addModel("b", [2])
        try await updater().refresh()
        try repo.publish(["roles": ["snapshot", "timestamp"], "version": ["snapshot": 2]])
        let error = await refusal(updater())
        #expect(error?.reason == .rollback(trusted: 3, offered: 2))
    }

    @Test("a rolled-back targets version is refused")
    func targetsRollback() async throws {
        try addModel("a", [1])
        try await updater().refresh()
        try repo.publish(["roles": ["targets", "snapshot", "timestamp"], "version": ["targets": 1]])
        let error = await refusal(updater())
        #expect(error?.role == "targets" && error?.reason == .rollback(trusted: 2, offered: 1))
    }

    @Test("an expired timestamp is refused naming the role and when; a clock set back does not matter to the reference time given")
    func expiredTimestamp() async throws {
        try repo.publish(["roles": ["timestamp"], "expires": ["timestamp": "2020-01-01T00:00:00Z"]])
        let now = Date()
        let error = await refusal(updater(now: now))
        #expect(error?.role == "timestamp")
        guard case .expired(let expires, let at)? = error?.reason else { Issue.record("not expired: \(String(describing: error))"); return }
        #expect(expires == Date(timeIntervalSince1970: 1_577_836_800) && at == now)
        // A reference time past every expiry (a clock moved forward) refuses the valid repository too.
        try repo.publish(["roles": ["timestamp"]])
        let later = await refusal(updater(now: Date().addingTimeInterval(400 * 86_400)))
        #expect(later?.role == "root" && later?.reasonCode == "expired")
    }

    @Test("a new root signed by the new keys alone (too few of the trusted root's) is refused; root v1 stays trusted")
    func rootRotationTooFewOldSignatures() async throws {
        try await updater().refresh()
        try repo.rotate(["role": "root", "signOld": [String]()])
        let error = await refusal(updater())
        #expect(error?.role == "root" && error?.reason == .threshold(signed: 0, threshold: 1, by: "trusted root v1"))
        #expect(store.rootVersions() == [1])
    }

    @Test("a root rotation signed by the old and the new keys is followed, and persisted in roots/")
    func rootRotation() async throws {
        try await updater().refresh()
        try repo.rotate(["role": "root"])
        try repo.publish()
        let summary = try await updater().refresh()
        #expect(summary.rootVersion == 2)
        #expect(store.rootVersions() == [1, 2])
    }

    @Test("one signature listed twice is refused")
    func duplicatedSignature() async throws {
        try repo.publish(["duplicateSignature": "snapshot"])
        let error = await refusal(updater())
        #expect(error?.role == "snapshot" && error?.reasonCode == "malformed")
    }

    @Test("a timestamp larger than its limit is refused before it is parsed")
    func oversizedTimestamp() async throws {
        try repo.replace("timestamp.json", with: Data(repeating: UInt8(ascii: " "), count: 16_385))
        let error = await refusal(updater())
        #expect(error == TUFError(role: "timestamp", reason: .tooLarge(limit: 16_384)))
    }

    @Test("a delegation cycle ends the search: the target is not found, no loop")
    func delegationCycle() async throws {
        try repo.publish(["delegate": [["name": "a", "paths": ["*"]], ["name": "b", "paths": ["*"], "from": "a"]]])
        try repo.publish(["delegate": [["name": "a", "paths": ["*"], "from": "b"]]])
        let u = updater()
        try await u.refresh()
        await #expect(throws: TUFError(role: "x", reason: .targetNotFound)) { try await u.target("x") }
    }

    @Test("an update interrupted after the timestamp was stored resumes from what is stored")
    func interruptedUpdate() async throws {
        try addModel("a", [1])
        try await updater().refresh()
        try addModel("b", [2])
        // As if killed after the new timestamp was stored and before the snapshot was.
        try store.write("timestamp", repo.file("timestamp.json"))
        let u = updater()
        let summary = try await u.refresh()
        #expect(summary.timestampVersion == 3 && summary.snapshotVersion == 3)
        #expect(try await u.target("b").length == 1)
    }

    @Test("searches evaluated at once (the models of one run) share one refresh and every role loaded once; none sees another's half-done step", arguments: [false, true])
    func concurrentSearches(delegated: Bool) async throws {
        let ids = (0..<6).map { "m\($0)" }
        if delegated {
            try repo.publish(["delegate": ids.map { ["name": "role-\($0)", "paths": ["models/\($0)/*"]] }])
        }
        for id in ids {
            let target: [String: Any] = ["path": "models/\(id)/1.0.0.bin", "length": 2, "sha256": DigestAlgorithm.sha256.hex(Array(id.utf8))]
            try repo.publish(delegated ? ["targets": ["role": "role-\(id)", "add": [target]], "roles": ["role-\(id)", "snapshot", "timestamp"]]
                                       : ["targets": ["add": [target]]])
        }
        let source = SuspendingSource(TUFDirectorySource(directory: repo.metadataDirectory))
        let u = TUFUpdater(anchor: repo.initialRoot, store: store, source: source, now: Date())
        let lengths = try await withThrowingTaskGroup(of: Int64.self) { group in
            for id in ids { group.addTask { try await u.target("models/\(id)/1.0.0.bin").length } }
            return try await group.reduce(into: [Int64]()) { $0.append($1) }
        }
        #expect(lengths == Array(repeating: 2, count: ids.count))
        let fetched = source.names()
        #expect(fetched.filter { !$0.hasSuffix("root.json") }.count == Set(fetched).subtracting(fetched.filter { $0.hasSuffix("root.json") }).count,
                "each role fetched once: \(fetched)")
        #expect(fetched.filter { $0 == "timestamp.json" }.count == 1, "\(fetched)")
    }

    /// A source that suspends on every fetch (as a network read does), so concurrent callers
    /// interleave, and records what was fetched.
    final class SuspendingSource: TUFMetadataSource, @unchecked Sendable {
        let inner: TUFDirectorySource
        private let lock = NSLock()
        private var fetched: [String] = []
        init(_ inner: TUFDirectorySource) { self.inner = inner }
        func names() -> [String] { lock.withLock { fetched } }
        func fetch(_ name: String, maxLength: Int) async throws(TUFError) -> Data? {
            lock.withLock { fetched.append(name) }
            for _ in 0..<20 { await Task.yield() }
            try? await Task.sleep(nanoseconds: 2_000_000)
            return try await inner.fetch(name, maxLength: maxLength)
        }
    }
}
#endif

#if os(Linux) || os(macOS) // python-tuf makes the repositories (ManashikiProcess: Linux and macOS)
import Foundation
import Manashiki
import ManashikiTestSupport
import Testing

/// `TUFTrustedState`: what `status` and the metrics file report of a store's trusted metadata,
/// read from disk after a refresh of a python-tuf repository, without the network.
@Suite("TUF trusted state read from the store", .requires(.pythonTUF, .pythonCryptography))
struct TUFTrustedStateTests {
    let repo: PythonTUFRepository
    let local = ScratchDirectory("tuf-state")
    var store: TUFMetadataStore { TUFMetadataStore(directory: local.url) }

    init() throws { repo = try PythonTUFRepository() }

    func refresh() async throws -> TUFSummary {
        try await TUFUpdater(anchor: repo.initialRoot, store: store, source: TUFDirectorySource(directory: repo.metadataDirectory), now: Date()).refresh()
    }

    @Test("each top-level role's version and expiry are the ones the last refresh verified; the files stay as they were")
    func readsWhatTheRefreshVerified() async throws {
        #expect(TUFTrustedState(store: store).isEmpty, "nothing before the first refresh")
        try repo.publish(["roles": ["timestamp"], "expires": ["timestamp": "2031-02-03T04:05:06Z"]])
        let summary = try await refresh()
        let names = ["root.json", "timestamp.json", "snapshot.json", "targets.json"]
        let before = try names.map { try Data(contentsOf: local.file($0)) }
        let state = TUFTrustedState(store: store)
        #expect(state.roles.map(\.name) == TUFTrustedState.roleNames && state.unreadable.isEmpty)
        #expect(state.role("root")?.version == summary.rootVersion && state.role("root")?.expires == summary.rootExpires)
        #expect(state.role("timestamp")?.version == summary.timestampVersion && state.role("timestamp")?.version == 2)
        #expect(state.role("timestamp")?.expires == ISO8601DateFormatter().date(from: "2031-02-03T04:05:06Z"))
        #expect(state.role("snapshot")?.version == summary.snapshotVersion && state.role("snapshot")?.expires == summary.snapshotExpires)
        #expect(state.role("targets")?.version == summary.targetsVersion && state.role("targets")?.expires == summary.targetsExpires)
        #expect(try names.map { try Data(contentsOf: local.file($0)) } == before, "reading changed a file")
    }

    @Test("a role expiring within the warning interval (or expired) is reported, the others are not")
    func expiringSoon() async throws {
        // In 30 days: before the other roles (365 days).
        let text = ISO8601DateFormatter().string(from: Date().addingTimeInterval(30 * 86_400))
        try repo.publish(["roles": ["timestamp"], "expires": ["timestamp": text]])
        _ = try await refresh()
        let state = TUFTrustedState(store: store)
        let expiry = try #require(state.role("timestamp")?.expires)
        let justBefore = expiry.addingTimeInterval(-TUFTrustedState.expiryWarningInterval + 60)
        #expect(state.expiringSoon(at: justBefore).map(\.name) == ["timestamp"])
        #expect(state.expiringSoon(at: expiry.addingTimeInterval(-TUFTrustedState.expiryWarningInterval - 60)).isEmpty)
        #expect(state.role("timestamp")?.isExpired(at: expiry) == true, "expiry is inclusive, as the client judges it")
        #expect(state.role("timestamp")?.isExpired(at: expiry.addingTimeInterval(-1)) == false)
        #expect(state.role("timestamp")?.secondsLeft(at: expiry.addingTimeInterval(-90)) == 90)
    }

    @Test("a damaged or oversized stored file is named unreadable; a missing one is left out", arguments: ["damaged", "oversized", "missing"])
    func unreadable(_ damage: String) async throws {
        _ = try await refresh()
        let file = local.file("snapshot.json")
        switch damage {
        case "damaged": try Data("{\"signed\": ".utf8).write(to: file)
        case "oversized": try Data(repeating: 0x20, count: TUFLimits().snapshot + 1).write(to: file)
        default: try FileManager.default.removeItem(at: file)
        }
        let state = TUFTrustedState(store: store)
        #expect(state.roles.map(\.name) == ["root", "timestamp", "targets"])
        #expect(state.unreadable == (damage == "missing" ? [] : ["snapshot"]))
    }
}
#endif

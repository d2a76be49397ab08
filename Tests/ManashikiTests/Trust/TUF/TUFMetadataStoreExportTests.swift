#if os(Linux) || os(macOS) // python-tuf makes the repositories (ManashikiProcess: Linux and macOS)
import Foundation
import Manashiki
import ManashikiCore
import ManashikiTestSupport
import Testing

/// `TUFMetadataStore.repositoryCopy`: the trusted metadata of a store, laid out as a repository
/// another client (an offline machine) updates from against its own pinned root.
@Suite("TUF metadata store: the trusted chain as a repository to carry offline", .requires(.pythonTUF, .pythonCryptography))
struct TUFMetadataStoreExportTests {
    @Test("a store's copy (rotated root, delegated role) lets a fresh client pinned at root 1 reach the same versions and targets",
          arguments: [false, true])
    func roundTrip(consistentSnapshot: Bool) async throws {
        let repo = try PythonTUFRepository(consistentSnapshot: consistentSnapshot)
        let scratch = ScratchDirectory("tuf-export")
        let store = TUFMetadataStore(directory: try scratch.directory("exporter"))
        #expect(store.repositoryCopy() == nil, "no timestamp trusted yet: nothing to carry")
        try repo.rotate(["role": "timestamp"])
        try repo.publish(["delegate": [["name": "beta-team", "paths": ["models/beta/*"]]],
                          "targets": ["role": "beta-team", "add": [["path": "models/beta/1.bin", "length": 3, "sha256": String(repeating: "ab", count: 32)]]]])
        let online = TUFUpdater(anchor: repo.initialRoot, store: store, source: TUFDirectorySource(directory: repo.metadataDirectory), now: Date())
        let trusted = try await online.refresh()
        _ = try await online.target("models/beta/1.bin")        // loads the delegated role into the store

        let copy = try #require(store.repositoryCopy())
        #expect(copy.rootVersions == [1, 2] && copy.timestampVersion == trusted.timestampVersion)
        let names = Set(copy.files.map(\.name))
        #expect(names.isSuperset(of: ["1.root.json", "2.root.json", "timestamp.json", "snapshot.json", "\(trusted.snapshotVersion).snapshot.json",
                                      "targets.json", "beta-team.json", "1.beta-team.json"]), "\(names.sorted())")
        #expect(!names.contains("root.json"))
        #expect(copy.files.last?.name == "timestamp.json", "the timestamp, where a reader starts, is written last")

        let carried = try scratch.directory("carried")
        for file in copy.files { try file.data.write(to: carried.appendingPathComponent(file.name)) }
        let offline = TUFUpdater(anchor: repo.initialRoot, store: TUFMetadataStore(directory: try scratch.directory("offline")),
                                 source: TUFDirectorySource(directory: carried), now: Date())
        #expect(try await offline.refresh() == trusted)
        let target = try await offline.target("models/beta/1.bin")
        #expect(target.length == 3 && target.sha256 == String(repeating: "ab", count: 32))
    }
}
#endif

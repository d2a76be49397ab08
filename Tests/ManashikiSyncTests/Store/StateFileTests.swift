import Testing
import Foundation
import Manashiki
#if canImport(Glibc)
import Glibc
#endif
@testable import ManashikiSync

@Suite("State file")
struct StateFileTests {
    @Test("a written state reads back identically and leaves no temporary file")
    func roundTrip() throws {
        let store = TestStore()
        try store.layout.prepare()
        var state = StoreState()
        state.models["a"] = .init(version: "1.0.0", sha256: String(repeating: "a", count: 64), size: 3,
                                  identity: FileIdentity(size: 3, mtimeNanoseconds: 42, inode: 7))
        state.cache(ModelRecord(modelId: "a", version: "1.0.0", size: 3, sha256: String(repeating: "a", count: 64),
                                compatibility: ModelCompatibility(platforms: [.ios]), lifecycle: ModelLifecycle(status: .deprecated), visibility: .private))
        try StateFile.write(state, to: store.layout)
        #expect(StateFile.read(store.layout) == .loaded(state))
        let names = try FileManager.default.contentsOfDirectory(atPath: store.layout.metadataDirectory.path)
        #expect(names.sorted() == ["state.json"])
    }

    @Test("a missing state file reads as missing")
    func missing() {
        #expect(StateFile.read(TestStore().layout) == .missing)
    }

    @Test("a corrupt state file is unusable (re-hash), a newer one is reported as newer")
    func unusable() throws {
        let store = TestStore()
        try store.layout.prepare()
        try Data("{not json".utf8).write(to: store.layout.stateFile)
        guard case .unusable(let why) = StateFile.read(store.layout) else { Issue.record("not unusable"); return }
        #expect(why.hasPrefix("state.json is not valid JSON (") && why.contains("line 1"), "\(why)")
        try Data(#"{"formatVersion": 9, "models": {}}"#.utf8).write(to: store.layout.stateFile)
        #expect(StateFile.read(store.layout) == .newer(9))
        #expect(StateFile.newerFormatMessage(9).contains("upgrade"))
    }

    @Test("a file's identity changes when it is rewritten")
    func identity() throws {
        let store = TestStore()
        store.write("a", "one")
        let first = try #require(FileIdentity.of(store.file("a")))
        #expect(first.size == 3)
        let temp = store.url.appendingPathComponent("x.tmp")
        try Data("two".utf8).write(to: temp)
        #expect(rename(temp.path, store.file("a").path) == 0)
        let second = try #require(FileIdentity.of(store.file("a")))
        #expect(first != second)
        #expect(FileIdentity.of(store.file("missing")) == nil)
    }
}

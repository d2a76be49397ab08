import Testing
import Foundation
import Manashiki
@testable import ManashikiSync
import ManashikiCore

@Suite("Store scanner")
struct StoreScannerTests {
    @Test("only <valid-id>.bin regular files are model files")
    func onlyModels() throws {
        let store = TestStore()
        store.write("good-model", "x")
        try Data("x".utf8).write(to: store.url.appendingPathComponent("Bad.bin"))
        try Data("x".utf8).write(to: store.url.appendingPathComponent("readme.txt"))
        try FileManager.default.createSymbolicLink(at: store.url.appendingPathComponent("link.bin"), withDestinationURL: store.file("good-model"))
        try FileManager.default.createDirectory(at: store.url.appendingPathComponent("dir.bin"), withIntermediateDirectories: true)
        #expect(Set(StoreScanner.identities(store.layout).keys) == ["good-model"])
    }

    @Test("files matching the state are trusted by stat; changed files of a plausible size are re-hashed")
    func hashesOnlyChanged() async throws {
        let store = TestStore()
        store.write("a", "aaa")
        store.write("b", "bbbb")
        store.write("c", "wrong size")
        var state = StoreState()
        let idA = try #require(FileIdentity.of(store.file("a")))
        state.models["a"] = .init(version: "1", sha256: SHA256Hasher.hash(Data("aaa".utf8)).hex, size: 3, identity: idA)
        let identities = StoreScanner.identities(store.layout)
        let snapshot = await StoreScanner.snapshot(store.layout, state: state, identities: identities,
                                                   candidateSizes: ["a": [3], "b": [4], "c": [3]])
        #expect(snapshot.files["a"]?.hashedSHA256 == nil)
        #expect(snapshot.isTrusted("a"))
        #expect(snapshot.files["b"]?.hashedSHA256 == SHA256Hasher.hash(Data("bbbb".utf8)).hex)
        #expect(snapshot.files["c"]?.hashedSHA256 == nil)
        #expect(snapshot.bytesHashed == 4)
    }
}

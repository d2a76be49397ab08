import Testing
import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import ManashikiSync

@Suite("Leftover cleaner")
struct LeftoverCleanerTests {
    @Test("abandoned partial files and state temp files are removed; live partials and other files stay")
    func cleans() throws {
        let store = TestStore()
        try FileManager.default.createDirectory(at: store.layout.partialDirectory, withIntermediateDirectories: true)
        let abandoned = store.layout.partialDirectory.appendingPathComponent("a.x1.partial")
        let live = store.layout.partialDirectory.appendingPathComponent("b.x2.partial")
        let other = store.layout.partialDirectory.appendingPathComponent("notes.txt")
        for url in [abandoned, live, other] { try Data("x".utf8).write(to: url) }
        try Data("{}".utf8).write(to: store.layout.metadataDirectory.appendingPathComponent("state.json.tmp.ab12"))
        store.write("keep", "model")
        // A download in progress holds an exclusive flock on its partial file.
        let fd = open(live.path, O_RDWR)
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        defer { close(fd) }

        let removed = LeftoverCleaner.clean(store.layout)
        #expect(removed == ["partial/a.x1.partial", "state.json.tmp.ab12"])
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
        #expect(FileManager.default.fileExists(atPath: live.path))
        #expect(FileManager.default.fileExists(atPath: other.path))
        #expect(store.contents("keep") == "model")
    }
}

import Foundation
import Testing
import ManashikiCore
import ManashikiTestSupport
@testable import Manashiki
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("DirectoryHandle: nothing reached through a symbolic link, nothing created outside")
struct DirectoryHandleTests {
    /// A store with `.manashiki` as given, and `outside/` beside it that nothing may touch.
    struct Planted {
        let scratch = ScratchDirectory("directory-handle")
        var store: URL { scratch.file("store") }
        var outside: URL { scratch.file("outside") }
        init() throws {
            try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        }
        func link(_ name: String, to target: URL) throws {
            try FileManager.default.createSymbolicLink(atPath: store.appendingPathComponent(name).path, withDestinationPath: target.path)
        }
        var outsideNames: [String] { (try? FileManager.default.contentsOfDirectory(atPath: outside.path)) ?? [] }
    }

    @Test("a .manashiki that is a symbolic link (to a directory or to nothing) is refused with ELOOP; nothing appears where it points")
    func metadataLink() throws {
        for dangling in [false, true] {
            let p = try Planted()
            try p.link(".manashiki", to: dangling ? p.outside.appendingPathComponent("new") : p.outside)
            let layout = StoreLayout(directory: p.store)
            #expect(throws: APIError.fileSystem(operation: "use directory (a symbolic link, which is never followed)",
                                                path: layout.metadataDirectory.path, code: ELOOP)) {
                try layout.openMetadata(creating: true)
            }
            #expect(p.outsideNames.isEmpty)
            #expect(throws: APIError.self) { try StorageDirectory(url: p.store) }
            #expect(p.outsideNames.isEmpty)
        }
    }

    @Test("a file that is a symbolic link is never opened or created through (a lock pointing outside stays absent)")
    func fileLink() throws {
        let p = try Planted()
        let metadata = try StoreLayout(directory: p.store).openMetadata(creating: true)
        let target = p.outside.appendingPathComponent("created-by-the-agent")
        try FileManager.default.createSymbolicLink(atPath: metadata.displayPath("lock"), withDestinationPath: target.path)
        #expect(throws: APIError.fileSystem(operation: "open or create (a symbolic link, which is never followed)",
                                            path: metadata.displayPath("lock"), code: ELOOP)) {
            try FileLock("lock", in: metadata)
        }
        #expect(!FileManager.default.fileExists(atPath: target.path))
        #expect(throws: APIError.self) { try metadata.read("lock", limit: 10) }
    }

    @Test("read refuses a FIFO and a directory without waiting, an oversized file naming its size and the limit; a missing file is nil")
    func readRefusals() throws {
        let p = try Planted()
        let metadata = try StoreLayout(directory: p.store).openMetadata(creating: true)
        try #require(mkfifo(metadata.displayPath("state.json"), 0o644) == 0)
        let fifo = #expect(throws: APIError.self) { try metadata.read("state.json", limit: 1 << 20) }
        #expect(fifo?.localizedDescription.contains("a FIFO, not a regular file") == true, "\(String(describing: fifo))")
        try FileManager.default.createDirectory(atPath: metadata.displayPath("usage.json"), withIntermediateDirectories: false)
        let directory = #expect(throws: APIError.self) { try metadata.read("usage.json", limit: 1 << 20) }
        #expect(directory?.localizedDescription.contains("A directory stands where this file should be") == true)
        #expect(directory?.localizedDescription.contains("model") == false)
        try Data(count: 3 << 20).write(to: URL(fileURLWithPath: metadata.displayPath("big.json")))
        let big = #expect(throws: APIError.self) { try metadata.read("big.json", limit: 1 << 20) }
        #expect(big == .fileSystem(operation: "read (3.0 MiB, over the 1.0 MiB this file may hold)", path: metadata.displayPath("big.json"), code: EFBIG))
        #expect(try metadata.read("none.json", limit: 10) == nil)
    }

    @Test("names that are not one path component are refused", arguments: ["", ".", "..", "a/b", "../x", "a\u{0}b"])
    func components(name: String) throws {
        let p = try Planted()
        let store = try StoreLayout(directory: p.store).openStore(creating: false)
        #expect(throws: APIError.self) { try store.openFile(name, flags: O_RDWR, creating: 0o644) }
        #expect(throws: APIError.self) { try store.directory(name, creating: true) }
        #expect(store.remove(name) == EINVAL)
        #expect(p.outsideNames.isEmpty)
    }

    @Test("replace writes durably through the descriptor; names lists without . and ..; remove removes")
    func replaceAndList() throws {
        let p = try Planted()
        let metadata = try StoreLayout(directory: p.store).openMetadata(creating: true)
        try metadata.replace("a.json", with: Data("{}".utf8))
        try metadata.replace("a.json", with: Data("{\"x\":1}".utf8))
        #expect(try metadata.read("a.json", limit: 100) == Data("{\"x\":1}".utf8))
        #expect(metadata.names() == ["a.json"])
        #expect(metadata.remove("a.json") == 0)
        #expect(metadata.names().isEmpty)
    }
}

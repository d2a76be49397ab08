import Foundation
import ManashikiTestSupport
import Testing
@testable import Manashiki
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Records which primitive was called, with what.
private final class Calls: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ s: String) { lock.lock(); list.append(s); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return list }
}

@Suite("Durable flush: F_FULLFSYNC with the fsync fallback (Apple), fsync (Linux)")
struct DurableFlushTests {
    @Test("F_FULLFSYNC that works is enough: fsync is not called")
    func fullSyncWorks() throws {
        let calls = Calls()
        let flush = DurableFlush(fullSync: { calls.add("full \($0)"); return 0 }, fsync: { calls.add("fsync \($0)"); return 0 })
        #expect(try flush.flush(7, path: "/store/a.bin") == .fullSync)
        #expect(calls.all == ["full 7"])
    }

    @Test("F_FULLFSYNC unsupported by the file system falls back to fsync", arguments: [ENOTSUP, EINVAL, EIO])
    func fallback(_ code: Int32) throws {
        let calls = Calls()
        let flush = DurableFlush(fullSync: { calls.add("full \($0)"); return code }, fsync: { calls.add("fsync \($0)"); return 0 })
        #expect(try flush.flush(7, path: "/store/a.bin") == .fsync)
        #expect(calls.all == ["full 7", "fsync 7"])
    }

    @Test("EINTR is retried, not taken for unsupported")
    func interrupted() throws {
        let calls = Calls()
        let flush = DurableFlush(fullSync: { _ in calls.add("full"); return calls.all.count == 1 ? EINTR : 0 },
                                 fsync: { _ in calls.add("fsync"); return 0 })
        #expect(try flush.flush(3, path: "/d") == .fullSync)
        #expect(calls.all == ["full", "full"])
    }

    @Test("when fsync fails too, the error names the path and the errno")
    func bothFail() {
        let flush = DurableFlush(fullSync: { _ in ENOTSUP }, fsync: { _ in EIO })
        #expect(throws: APIError.fileSystem(operation: "flush to disk", path: "/store/a.bin", code: EIO)) {
            try flush.flush(7, path: "/store/a.bin")
        }
    }

    @Test("Linux has no F_FULLFSYNC: the system flush is fsync, and it works on a real file and directory")
    func system() throws {
        #if os(Linux)
        #expect(DurableFlush.system.fullSync == nil)
        #else
        #expect(DurableFlush.system.fullSync != nil)
        #endif
        let scratch = ScratchDirectory("flush")
        let dir = scratch.url
        let file = dir.appendingPathComponent("f")
        try Data("x".utf8).write(to: file)
        for path in [file.path, dir.path] {
            let fd = open(path, O_RDONLY)
            #expect(fd >= 0)
            defer { close(fd) }
            try POSIX.sync(fd, path: path)
        }
    }
}

import Foundation
@testable import Manashiki
import ManashikiTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("RegularFile: opening what someone else put in place")
struct RegularFileTests {
    @Test("a FIFO is refused at once, not waited on (a blocking open would hang here for ever: no writer ever comes)")
    func fifoRefused() throws {
        let scratch = ScratchDirectory("regular-file")
        let fifo = scratch.file("blob").path
        try #require(mkfifo(fifo, 0o644) == 0)
        #expect(throws: RegularFile.OpenError.notRegular("a FIFO")) { try RegularFile.open(fifo) }
        // Opening it for writing (a lock file is opened read-write) is refused the same way.
        #expect(throws: RegularFile.OpenError.notRegular("a FIFO")) { try RegularFile.open(fifo, flags: O_RDWR) }
    }

    @Test("a directory, a symbolic link that must not be followed, a missing file: each its error")
    func otherKinds() throws {
        let scratch = ScratchDirectory("regular-file")
        let directory = try scratch.directory("d").path
        #expect(throws: RegularFile.OpenError.notRegular("a directory")) { try RegularFile.open(directory) }
        #expect(RegularFile.OpenError.notRegular("a directory").code == EISDIR)
        try Data("x".utf8).write(to: scratch.file("target"))
        try FileManager.default.createSymbolicLink(atPath: scratch.file("link").path, withDestinationPath: scratch.file("target").path)
        #expect(throws: RegularFile.OpenError.system(ELOOP)) { try RegularFile.open(scratch.file("link").path, followingLinks: false) }
        let followed = try RegularFile.open(scratch.file("link").path)
        close(followed)
        #expect(throws: RegularFile.OpenError.system(ENOENT)) { try RegularFile.open(scratch.file("none").path) }
    }

    @Test("a descriptor opened non-blocking is blocking again once it is known to be a regular file")
    func blockingAgain() throws {
        let scratch = ScratchDirectory("regular-file")
        try Data("x".utf8).write(to: scratch.file("f"))
        let fd = try RegularFile.open(scratch.file("f").path)
        defer { close(fd) }
        #expect(fcntl(fd, F_GETFL) & O_NONBLOCK == 0)
    }

    @Test("read stops at the limit: refused on the size, and at limit + 1 bytes when the size lies (a file that grows)",
          arguments: [0, 1, 4095, 4096, 4097, 100_000])
    func readLimit(size: Int) throws {
        let scratch = ScratchDirectory("regular-file")
        let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0) })
        try bytes.write(to: scratch.file("f"))
        let fd = try RegularFile.open(scratch.file("f").path)
        defer { close(fd) }
        let whole = try RegularFile.read(fd, limit: size)
        #expect(whole.data == bytes && whole.size == Int64(size))
        if size > 0 {
            let over = try RegularFile.read(fd, limit: size - 1)
            #expect(over.data == nil && over.size == Int64(size))
        }
    }

    @Test("a file whose size says 0 but that has bytes (procfs-like) is still read, and still bounded")
    func sizeZeroButBytes() throws {
        #if os(Linux)
        let fd = try RegularFile.open("/proc/self/status")
        defer { close(fd) }
        let read = try RegularFile.read(fd, limit: 1 << 20)
        #expect((read.data?.count ?? 0) > 0)
        let bounded = try RegularFile.read(fd, limit: 10)
        #expect(bounded.data == nil && bounded.size == 11)
        #endif
    }
}

import Foundation
import Testing
import ManashikiCore
import ManashikiTestSupport
@testable import Manashiki
@testable import ManashikiSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("ModelLease and StoreUsage")
struct ModelLeaseTests {
    /// Holds `.manashiki/usage/lock` through an open file description of its own, as another
    /// process recording a use would.
    static func holdUsageLock(_ layout: StoreLayout) throws -> FileLock {
        let lock = try FileLock("lock", in: try layout.openUsage(creating: true))
        #expect(lock.tryLock(.exclusive))
        return lock
    }

    @Test("taking and releasing a lease never wait for the usage file: the use is written in the background once its lock is free")
    func recordingNeverBlocks() async throws {
        let store = TestStore()
        store.write("m", "model bytes")
        let holder = try Self.holdUsageLock(store.layout)
        // Were the use recorded on this thread, each call would wait for the lock (5 s) and
        // then drop the use (busy): it would never reach the file.
        let lease = try ModelLease.acquire("m", storeDirectory: store.url)
        lease.release()
        #expect(StoreUsage.read(store.layout).usage.models["m"] == nil) // the writer waits for the lock
        holder.release()
        await ModelLease.waitForRecordedUses()
        #expect(StoreUsage.read(store.layout).usage.models["m"] != nil)
    }

    @Test("a lease whose .manashiki/leases is a symbolic link is refused (ELOOP), and nothing is created where it points")
    func leasesLink() throws {
        let store = TestStore()
        store.write("m", "model bytes")
        let outside = ScratchDirectory("outside")
        try FileManager.default.createDirectory(at: store.layout.metadataDirectory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: store.layout.leaseDirectory.path, withDestinationPath: outside.url.path)
        #expect(throws: APIError.self) { try ModelLease.acquire("m", storeDirectory: store.url) }
        #expect(EvictionGuard.take("m", store.layout) == nil) // treated as in use, never followed
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.url.path).isEmpty)
    }

    @Test("a usage file that is a FIFO, a directory or over its limit is read as empty with a warning; the next use replaces a bad file")
    func hostileUsageFile() async throws {
        for kind in ["fifo", "directory", "big"] {
            let store = TestStore()
            let usage = try store.layout.openUsage(creating: true)
            let path = usage.displayPath("usage.json")
            switch kind {
            case "fifo": try #require(mkfifo(path, 0o644) == 0)
            case "directory": try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            default: try Data(repeating: 0x20, count: StoreUsage.maxBytes + 1).write(to: URL(fileURLWithPath: path))
            }
            let read = StoreUsage.read(store.layout)
            #expect(read.usage.models.isEmpty && read.warning?.contains("cannot be read") == true, "\(kind): \(String(describing: read.warning))")
            if kind != "directory" { // a rename cannot replace a directory with a file
                try StoreUsage.recordUse(of: ["m"], in: store.layout)
                #expect(StoreUsage.read(store.layout).usage.models["m"] != nil, "\(kind)")
            }
        }
    }
}

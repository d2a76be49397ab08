import Testing
import Foundation
@testable import ManashikiSync
import Manashiki
import ManashikiTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Store lock")
struct StoreLockTests {
    @Test("a second holder gives up after the timeout while the first holds the lock")
    func contention() async throws {
        let store = TestStore()
        let first = try #require(try await StoreLock.acquire(store.layout, timeout: .zero))
        let sleeps = SleepRecorder()
        let second = try await StoreLock.acquire(store.layout, timeout: .seconds(1), pollInterval: .milliseconds(250), sleep: sleeps.sleep)
        #expect(second == nil)
        #expect(sleeps.sleeps == [.milliseconds(250), .milliseconds(250), .milliseconds(250), .milliseconds(250)])
        first.release()
    }

    @Test("a waiting run gets the lock once the holder releases it")
    func waitsThenAcquires() async throws {
        let store = TestStore()
        let first = try #require(try await StoreLock.acquire(store.layout, timeout: .zero))
        let second = try await StoreLock.acquire(store.layout, timeout: .seconds(30), sleep: { _ in first.release() })
        #expect(second != nil)
    }

    @Test("a lock whose holder is gone (descriptor closed, as when a process dies) never blocks")
    func crashedHolder() async throws {
        let store = TestStore()
        do {
            let crashed = try await StoreLock.acquire(store.layout, timeout: .zero)
            #expect(crashed != nil)
        } // deinit closes the descriptor, as the kernel does for a dead process
        #expect(FileManager.default.fileExists(atPath: store.layout.lockFile.path))
        // Not `.zero`: a child process spawned meanwhile by another test holds a copy of the
        // closed descriptor until it execs.
        #expect(try await StoreLock.acquire(store.layout, timeout: .seconds(5)) != nil)
    }
}

@Suite("Store lock in a crafted store")
struct StoreLockHostileTests {
    @Test("a lock file or a .manashiki that is a symbolic link to a path outside is refused (ELOOP); nothing is created there")
    func symlinkedLock() async throws {
        for planted in ["lock", ".manashiki"] {
            let store = TestStore()
            let outside = ScratchDirectory("outside")
            let target = outside.file("victim")
            if planted == "lock" {
                try FileManager.default.createDirectory(at: store.layout.metadataDirectory, withIntermediateDirectories: true)
                try FileManager.default.createSymbolicLink(atPath: store.layout.lockFile.path, withDestinationPath: target.path)
            } else {
                try FileManager.default.createSymbolicLink(atPath: store.layout.metadataDirectory.path, withDestinationPath: outside.url.path)
            }
            let error = await #expect(throws: APIError.self) { try await StoreLock.acquire(store.layout, timeout: .zero) }
            guard case .fileSystem(_, _, let code)? = error else { Issue.record("\(planted): \(String(describing: error))"); continue }
            #expect(code == ELOOP, "\(planted)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.url.path).isEmpty, "\(planted)")
        }
    }
}

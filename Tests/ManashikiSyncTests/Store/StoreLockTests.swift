import Testing
import Foundation
@testable import ManashikiSync

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

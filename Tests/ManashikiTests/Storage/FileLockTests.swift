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

@Suite("FileLock: the one file lock")
struct FileLockTests {
    @Test("exclusive excludes exclusive and shared; shared admits shared; release lets the next in")
    func modes() throws {
        let scratch = ScratchDirectory("file-lock")
        let folder = try DirectoryHandle.open(scratch.url, creating: false)
        let a = try FileLock("l", in: folder), b = try FileLock("l", in: folder), c = try FileLock("l", in: folder)
        #expect(a.tryLock(.shared))
        #expect(b.tryLock(.shared))
        #expect(!c.tryLock(.exclusive))
        #expect(c.lock(.exclusive, waitingUpTo: .milliseconds(30)) == .held)
        a.release()
        b.release()
        #expect(c.lock(.exclusive, waitingUpTo: .seconds(5)) == .locked)
        #expect(!a.tryLock(.shared)) // released: a closed lock never locks again
        #expect(a.release() == false)
    }

    @Test("the async wait sleeps in steps of the interval, the last cut to the deadline, and gives up held")
    func asyncSteps() async throws {
        let scratch = ScratchDirectory("file-lock")
        let folder = try DirectoryHandle.open(scratch.url, creating: false)
        let holder = try FileLock("l", in: folder), waiter = try FileLock("l", in: folder)
        #expect(holder.tryLock(.exclusive))
        let steps = Locked<[Duration]>([])
        let outcome = try await waiter.lock(.exclusive, waitingUpTo: .milliseconds(250), pollInterval: .milliseconds(100)) { step in
            steps.withLock { $0.append(step) }
        }
        #expect(outcome == .held)
        #expect(steps.current == [.milliseconds(100), .milliseconds(100), .milliseconds(50)])
        let second = try await waiter.lock(.exclusive, waitingUpTo: .seconds(30), pollInterval: .milliseconds(100)) { _ in holder.release() }
        #expect(second == .locked)
    }

    @Test("a lock on a descriptor owned elsewhere (a partial) is taken, seen held by another open file, and unlocked")
    func descriptors() throws {
        let scratch = ScratchDirectory("file-lock")
        let folder = try DirectoryHandle.open(scratch.url, creating: false)
        let one = try folder.openFile("p", flags: O_RDWR, creating: 0o644), two = try folder.openFile("p", flags: O_RDWR)
        defer { close(one); close(two) }
        #expect(FileLock.tryLock(one))
        #expect(FileLock.lock(two, waitingUpTo: .milliseconds(20)) == .held)
        FileLock.unlock(one)
        #expect(FileLock.lock(two, waitingUpTo: .zero) == .locked)
    }
}

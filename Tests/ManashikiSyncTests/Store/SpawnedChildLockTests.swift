#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import ManashikiCore
import Manashiki
import ManashikiProcess
import Testing
@testable import ManashikiSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `flock` this process released an instant ago, re-taken while other threads spawn child
/// processes (each holds a copy of every descriptor, and with it the lock, until it execs).
@Suite("Locks re-taken while children are spawned")
struct SpawnedChildLockTests {
    /// Starts `/bin/true` over and over on its own thread until `stop`; `finished` is
    /// signalled when the thread ends.
    final class Spawner: @unchecked Sendable {
        let stop = Locked(false)
        let finished = DispatchSemaphore(value: 0)

        init() {
            Thread.detachNewThread { [self] in
                while !stop.withLock({ $0 }) {
                    let child = ChildProcess()
                    child.executableURL = URL(fileURLWithPath: "/bin/true")
                    try? child.run()
                    child.waitUntilExit()
                }
                finished.signal()
            }
        }

        func end() {
            stop.withLock { $0 = true }
            finished.wait()
        }
    }

    // Without the wait (lockTimeout: .zero) about half of these exports failed with
    // BundleBusy on this machine: each child spawned in the meantime held a copy of the
    // bundle's descriptor, and with it the flock, until it exec'd.
    @Test("back-to-back exports succeed while other threads spawn processes (a child holds copies of descriptors until exec)")
    func backToBackWhileSpawning() throws {
        let store = try BundleExporterTests.store(["alpha": "alpha bytes"])
        let scratch = ScratchDirectory("bundle")
        let bundle = BundleLayout(directory: scratch.file("bundle")) // not created yet
        let spawners = [Spawner(), Spawner()]
        defer { spawners.forEach { $0.end() } }
        var busy = 0
        for _ in 0..<100 {
            do { _ = try BundleExporter.export(store: store.layout, to: bundle, selection: .store) } catch is BundleExporter.BundleBusy { busy += 1 }
        }
        #expect(busy == 0)
    }

    // A ReconcilerTests case once saw its own just-closed partial as in use (and the preflight
    // then refused the plan): the same copy of the descriptor in a child not yet exec'd.
    @Test("a partial closed an instant ago is not reported in use while other threads spawn processes")
    func keptPartialNotInUseWhileSpawning() throws {
        let store = TestStore()
        try store.layout.prepare()
        let directory = try StorageDirectory(url: store.url)
        let spawners = [Spawner(), Spawner()]
        defer { spawners.forEach { $0.end() } }
        var inUse = 0
        for _ in 0..<100 {
            let (name, fd) = try directory.createPartial(for: "a")
            try directory.keepPartial(name, file: fd, modelId: "a", sha256: String(repeating: "0", count: 64), size: 1000, version: "1.0.0")
            close(fd)
            if StorageDirectory.keptPartials(in: store.layout).contains(where: { $0.name == name && $0.inUse }) { inUse += 1 }
            directory.removePartial(name)
        }
        #expect(inUse == 0)
    }
}
#endif

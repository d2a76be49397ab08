import Foundation
import ManashikiTestSupport
import Manashiki
@testable import ManashikiSync
import ManashikiCore

/// A store in a `ScratchDirectory` of its own (removed with the value), with readers for what
/// the agent keeps there.
final class TestStore: Sendable {
    private let scratch = ScratchDirectory("manashiki-sync-tests")
    var url: URL { scratch.url }
    var layout: StoreLayout { StoreLayout(directory: url) }

    func file(_ id: String) -> URL { layout.modelFile(id) }

    func write(_ id: String, _ text: String) { try! Data(text.utf8).write(to: file(id)) }

    func contents(_ id: String) -> String? {
        (try? Data(contentsOf: file(id))).map { String(decoding: $0, as: UTF8.self) }
    }

    func readState() -> StoreState? {
        if case .loaded(let s) = StateFile.read(layout) { return s }
        return nil
    }
}

/// Retry and lock options that never wait, with every sleep recorded.
final class SleepRecorder: Sendable {
    private let log = Locked<[Duration]>([])
    var sleeps: [Duration] { log.current }
    var sleep: @Sendable (Duration) async throws -> Void { { [log] d in log.withLock { $0.append(d) } } }
}

enum Fixture {
    static let linux = DeviceProfile(platform: .linux, osVersion: "6.1", memoryMB: 16_384)

    /// Options for tests: retries sleep on `recorder` (no real waiting). The store lock is
    /// polled with a virtual 10 s timeout in 1 ms real steps: a process spawned by another test
    /// can hold a copy of the lock's descriptor between its fork and exec, so a zero timeout
    /// would make runs fail as "locked" at random under load.
    static func options(_ recorder: SleepRecorder = SleepRecorder(), free: Int64? = 1 << 40,
                        env: [String: String] = [:], forcePrune: Bool = false, lockTimeout: Duration = .seconds(10),
                        device: DeviceProfile = linux) -> Reconciler.Options {
        Reconciler.Options(
            lockTimeout: lockTimeout, sleep: lockPollSleep, forcePrune: forcePrune, device: device,
            retry: RetryPolicy(maxAttempts: 3, sleep: recorder.sleep, random: { 0.5 }),
            freeSpace: { _ in free }, environment: SyncEnvironment(variables: env))
    }

    /// One real millisecond per poll, whatever the virtual interval.
    static let lockPollSleep: @Sendable (Duration) async throws -> Void = { _ in try await Task.sleep(nanoseconds: 1_000_000) }

    static func manifest(_ store: TestStore, _ models: [ModelSpec], prune: PrunePolicy = PrunePolicy(),
                         concurrency: Int = 2) -> Manifest {
        Manifest(store: StoreSettings(directory: store.url.path, concurrency: concurrency, prune: prune), models: models)
    }

    static func reconciler(_ store: TestStore, _ registry: FakeRegistry, _ models: [ModelSpec],
                           prune: PrunePolicy = PrunePolicy(), options: Reconciler.Options = options()) -> Reconciler {
        Reconciler(manifest: manifest(store, models, prune: prune), registry: registry, options: options)
    }
}

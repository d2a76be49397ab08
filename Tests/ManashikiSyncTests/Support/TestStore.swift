import Foundation
import Manashiki
@testable import ManashikiSync

/// A temporary store directory, removed when the value is deinitialised.
final class TestStore: Sendable {
    let url: URL
    var layout: StoreLayout { StoreLayout(directory: url) }

    init() {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("manashiki-sync-tests-\(UUID().uuidString)", isDirectory: true)
            .standardizedFileURL
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

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

    static func options(_ recorder: SleepRecorder = SleepRecorder(), free: Int64? = 1 << 40,
                        env: [String: String] = [:], forcePrune: Bool = false, lockTimeout: Duration = .zero,
                        device: DeviceProfile = linux) -> Reconciler.Options {
        Reconciler.Options(
            lockTimeout: lockTimeout, sleep: recorder.sleep, forcePrune: forcePrune, device: device,
            retry: RetryPolicy(maxAttempts: 3, sleep: recorder.sleep, random: { 0.5 }),
            freeSpace: { _ in free }, environment: SyncEnvironment(variables: env))
    }

    static func manifest(_ store: TestStore, _ models: [ModelSpec], prune: PrunePolicy = PrunePolicy(),
                         concurrency: Int = 2) -> Manifest {
        Manifest(store: StoreSettings(directory: store.url.path, concurrency: concurrency, prune: prune), models: models)
    }

    static func reconciler(_ store: TestStore, _ registry: FakeRegistry, _ models: [ModelSpec],
                           prune: PrunePolicy = PrunePolicy(), options: Reconciler.Options = options()) -> Reconciler {
        Reconciler(manifest: manifest(store, models, prune: prune), registry: registry, options: options)
    }
}

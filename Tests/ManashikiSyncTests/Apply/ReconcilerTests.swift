import Testing
import Foundation
import Manashiki
@testable import ManashikiSync
import ManashikiCore

@Suite("Reconciler with a fake registry")
struct ReconcilerTests {
    @Test("a first sync installs every model, records them and reports changed")
    func firstSync() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        registry.publish("b", "2.1.0")
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "a"), ModelSpec(id: "b")]).run()
        #expect(report.outcome == .changed)
        #expect(report.results.map(\.status) == [.installed(version: "1.0.0"), .installed(version: "2.1.0")])
        #expect(store.contents("a") == "a 1.0.0 weights")
        #expect(store.contents("b") == "b 2.1.0 weights")
        let state = try #require(store.readState())
        #expect(state.models["a"]?.version == "1.0.0")
        #expect(state.models["a"]?.sha256 == registry.entry("a")?.sha256)
        #expect(state.models["b"]?.identity == FileIdentity.of(store.file("b")))
        // Installed, current models need no cached record (it is only kept for what is not installed).
        #expect(state.records.isEmpty)
        #expect(registry.calls.sorted() == ["download a", "download b", "get a", "get b", "list"])
        #expect(report.bytesDownloaded == Int64("a 1.0.0 weights".utf8.count + "b 2.1.0 weights".utf8.count))
    }

    @Test("a state file written by a newer agent stops the run and is never overwritten")
    func newerStateFile() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        try store.layout.prepare()
        let newer = Data(#"{"formatVersion": 2, "models": {}, "future": true}"#.utf8)
        try newer.write(to: store.layout.stateFile)
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "a")]).run()
        #expect(report.outcome == .failed)
        #expect(report.runFailure?.message.contains("upgrade this agent") == true)
        #expect(try Data(contentsOf: store.layout.stateFile) == newer)
        #expect(!FileManager.default.fileExists(atPath: store.file("a").path))
    }

    @Test("store directories compare by path, whatever trailing slash a URL carries")
    func storePathComparison() {
        #expect(SyncRun.comparablePath(URL(fileURLWithPath: "/var/lib/models/")) == SyncRun.comparablePath(URL(fileURLWithPath: "/var/lib/models")))
        #expect(SyncRun.comparablePath(URL(fileURLWithPath: "/var/lib/./models")) == "/var/lib/models")
        #expect(SyncRun.comparablePath(URL(fileURLWithPath: "/var/lib/models")) != SyncRun.comparablePath(URL(fileURLWithPath: "/var/lib/other")))
    }

    @Test("a no-op sync makes exactly one API request and re-hashes nothing")
    func noOp() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        registry.publish("b", "1.0.0")
        let reconciler = Fixture.reconciler(store, registry, [ModelSpec(id: "a"), ModelSpec(id: "b")])
        _ = await reconciler.run()
        let stateBefore = try Data(contentsOf: store.layout.stateFile)
        let callsBefore = registry.calls.count

        let report = await reconciler.run()
        #expect(report.outcome == .inSync)
        #expect(registry.calls.count - callsBefore == 1)
        #expect(registry.calls.last == "list")
        #expect(report.bytesHashed == 0)
        #expect(report.results.map(\.status) == [.unchanged(version: "1.0.0"), .unchanged(version: "1.0.0")])
        #expect(try Data(contentsOf: store.layout.stateFile) == stateBefore)
    }

    @Test("a new version in the registry replaces the installed file")
    func newVersion() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        let reconciler = Fixture.reconciler(store, registry, [ModelSpec(id: "a", version: .caret(ModelVersion("1.0")!))])
        _ = await reconciler.run()
        registry.publish("a", "1.1.0")
        let report = await reconciler.run()
        #expect(report.outcome == .changed)
        #expect(report["a"]?.status == .replaced(from: "1.0.0", to: "1.1.0"))
        #expect(store.contents("a") == "a 1.1.0 weights")
        #expect(store.readState()?.models["a"]?.version == "1.1.0")
        #expect(store.readState()?.records.isEmpty == true)
    }

    @Test("the record of a model that is not installed (incompatible) is cached, so later runs make one request")
    func recordCacheForSkipped() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        registry.publish("watch-only", "2.0.0", platforms: [.watchos])
        let reconciler = Fixture.reconciler(store, registry, [ModelSpec(id: "a"), ModelSpec(id: "watch-only", isOptional: true)])
        let first = await reconciler.run()
        #expect(first["watch-only"]?.status == .skipped)
        #expect(store.readState()?.records.keys.sorted() == ["watch-only@2.0.0"])
        let callsBefore = registry.calls.count
        let second = await reconciler.run()
        #expect(second["watch-only"]?.status == .skipped)
        #expect(Array(registry.calls.dropFirst(callsBefore)) == ["list"])
    }

    @Test("an entry removed from the manifest is pruned; files the agent never installed stay")
    func prune() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        registry.publish("b", "1.0.0")
        _ = await Fixture.reconciler(store, registry, [ModelSpec(id: "a"), ModelSpec(id: "b")]).run()
        store.write("handmade", "not ours")
        try Data("notes".utf8).write(to: store.url.appendingPathComponent("notes.txt"))

        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "a")]).run()
        #expect(report.outcome == .changed)
        #expect(report["b"]?.status == .pruned)
        #expect(store.contents("b") == nil)
        #expect(store.contents("handmade") == "not ours")
        #expect(FileManager.default.fileExists(atPath: store.url.appendingPathComponent("notes.txt").path))
        #expect(store.readState()?.models.keys.sorted() == ["a"])
    }

    @Test("a corrupted file on disk is detected by stat, re-hashed and replaced")
    func corrupted() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        let reconciler = Fixture.reconciler(store, registry, [ModelSpec(id: "a")])
        _ = await reconciler.run()
        // Same size, different bytes: only the hash can tell.
        let original = try #require(store.contents("a"))
        store.write("a", String(original.reversed()))
        let report = await reconciler.run()
        #expect(report.bytesHashed == Int64(original.utf8.count))
        guard case .replace(_, _, .corrupt)? = report["a"]?.planned.action else { Issue.record("expected a replace"); return }
        #expect(report["a"]?.status == .replaced(from: "1.0.0", to: "1.0.0"))
        #expect(store.contents("a") == original)
    }

    @Test("a partial failure installs the others, reports the failure as terminal and prunes nothing")
    func partialFailure() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        for id in ["a", "b", "old"] { registry.publish(id, "1.0.0") }
        _ = await Fixture.reconciler(store, registry, [ModelSpec(id: "old")]).run()
        registry.failDownloads(of: "b", with: [.integrityMismatch(expected: "x", actual: "y")])

        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "a"), ModelSpec(id: "b")]).run()
        #expect(report.outcome == .partialFailure)
        #expect(report["a"]?.status == .installed(version: "1.0.0"))
        #expect(report["b"]?.failure?.kind == .terminal)
        #expect(report["b"]?.failure?.attempts == 1)
        #expect(registry.calls("download b").count == 1)
        guard case .notRun(let why)? = report["old"]?.status else { Issue.record("expected the prune not to run"); return }
        #expect(why.contains("1 model(s) failed"))
        #expect(store.contents("old") != nil)
        #expect(!report.isRetryable)
    }

    @Test("retryable failures are retried with backoff, honouring a capped Retry-After")
    func retries() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        registry.failDownloads(of: "a", with: [.rateLimited(retryAfter: 600), .server(status: 503, message: nil)])
        let sleeps = SleepRecorder()
        var options = Fixture.options(sleeps)
        options.retry = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(1), maxRetryAfter: .seconds(60), jitter: 0.5, sleep: sleeps.sleep, random: { 0.5 })
        let events = Locked<[SyncEvent]>([])
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "a")], options: options).run { e in events.withLock { $0.append(e) } }
        #expect(report.outcome == .changed)
        #expect(registry.calls("download a").count == 3)
        // Retry-After 600 s capped to 60 s, spread by half of 50 % (random 0.5); then 2 s
        // backoff (attempt 2) with +25 % jitter.
        #expect(sleeps.sleeps == [.seconds(75), .milliseconds(2500)])
        let retrying = events.current.filter { if case .retrying = $0 { return true } else { return false } }
        #expect(retrying.count == 2)
    }

    @Test("retryable failures that persist end as a retryable outcome")
    func retryableExhausted() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        registry.failDownloads(of: "a", with: Array(repeating: .transport("connection reset"), count: 5))
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "a")]).run()
        #expect(report.outcome == .failed)
        #expect(report["a"]?.failure?.kind == .retryable)
        #expect(report["a"]?.failure?.attempts == 3)
        #expect(report.isRetryable)
    }

    @Test("an unreachable catalog fails the run before anything changes")
    func catalogFails() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.failListing(with: [.unauthorized])
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "a")]).run()
        #expect(report.outcome == .failed)
        #expect(report.runFailure?.apiError == .unauthorized)
        #expect(report.plan == nil)
    }

    @Test("downloads run in a bounded sliding window, never two on one model")
    func boundedConcurrency() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        let ids = (1...7).map { "m\($0)" }
        for id in ids { registry.publish(id, "1.0.0") }
        let manifest = Manifest(store: StoreSettings(directory: store.url.path, concurrency: 3), models: ids.map { ModelSpec(id: $0) })
        let report = await Reconciler(manifest: manifest, registry: registry, options: Fixture.options()).run()
        #expect(report.outcome == .changed)
        #expect(report.results.count == 7)
        #expect(registry.maxInFlight <= 3)
        #expect(registry.maxInFlight >= 1)
        #expect(registry.overlapping.isEmpty)
        #expect(registry.calls("download").count == 7)
    }

    @Test("a second run on a locked store exits with the locked outcome; a crashed holder does not block")
    func lock() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        let holder = try #require(try await StoreLock.acquire(store.layout, timeout: .zero))
        let sleeps = SleepRecorder()
        var options = Fixture.options(sleeps, lockTimeout: .seconds(1))
        options.sleep = sleeps.sleep // record the lock polls instead of waiting
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "a")], options: options).run()
        #expect(report.outcome == .storeBusy)
        #expect(report.isRetryable)
        #expect(registry.calls.isEmpty)
        #expect(!sleeps.sleeps.isEmpty)
        holder.release() // as the kernel does when the holding process dies
        #expect(await Fixture.reconciler(store, registry, [ModelSpec(id: "a")]).run().outcome == .changed)
    }

    @Test("two concurrent runs on one store: exactly one applies, the other is locked out")
    func concurrentRuns() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        // Both start at once with no lock wait: the loser is locked out, or (if the winner already
        // finished) finds the store in sync. Either way the model is downloaded once.
        let r1 = Fixture.reconciler(store, registry, [ModelSpec(id: "a")])
        let r2 = Fixture.reconciler(store, registry, [ModelSpec(id: "a")])
        async let one = r1.run()
        async let two = r2.run()
        let outcomes = await [one.outcome, two.outcome]
        #expect(outcomes.contains(.changed))
        #expect(outcomes.allSatisfy { [.changed, .storeBusy, .inSync].contains($0) })
        #expect(registry.calls("download a").count == 1)
    }

    @Test("leftovers of a crashed run are cleaned at the start")
    func leftovers() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        try FileManager.default.createDirectory(at: store.layout.partialDirectory, withIntermediateDirectories: true)
        try Data("half".utf8).write(to: store.layout.partialDirectory.appendingPathComponent("a.zz.partial"))
        try Data("{".utf8).write(to: store.layout.metadataDirectory.appendingPathComponent("state.json.tmp.1234"))
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "a")]).run()
        #expect(report.cleanedLeftovers == ["partial/a.zz.partial", "state.json.tmp.1234"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.layout.partialDirectory.path).isEmpty)
    }

    @Test("a plan that needs more disk than is free is refused before any byte moves")
    func diskSpace() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0", bytes: String(repeating: "x", count: 1000))
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "a")], options: Fixture.options(free: 999)).run()
        #expect(report.outcome == .refused)
        #expect(report.plan?.refusal == .insufficientDiskSpace(needed: 1000, available: 999))
        #expect(registry.calls("download").isEmpty)
        #expect(report["a"]?.status == .notRun(PlanRefusal.insufficientDiskSpace(needed: 1000, available: 999).description))
        #expect(store.contents("a") == nil)
    }

    @Test("a kept partial of the same artifact counts as already on disk in the preflight; another artifact's does not",
          arguments: [(true, false), (false, true)])
    func diskSpaceWithKeptPartial(_ sameArtifact: Bool, _ refused: Bool) async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        let entry = registry.publish("a", "1.0.0", bytes: String(repeating: "x", count: 1000))
        // 600 bytes kept by an interrupted run (partial + sidecar, as the SDK leaves them).
        let directory = try StorageDirectory(url: store.url)
        let (name, fd) = try directory.createPartial(for: "a")
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        try handle.write(contentsOf: Data(repeating: UInt8(ascii: "x"), count: 600))
        try directory.keepPartial(name, file: fd, modelId: "a", sha256: sameArtifact ? entry.sha256 : String(repeating: "0", count: 64),
                                  size: 1000, version: "1.0.0")
        try handle.close()
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "a")], options: Fixture.options(free: 500)).run()
        #expect(report.plan?.refusal == (refused ? .insufficientDiskSpace(needed: 1000, available: 500) : nil))
        #expect(report.outcome == (refused ? .refused : .changed))
    }

    @Test("a private model downloads with the session from the environment and is blocked without one")
    func privateModels() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("p", "1.0.0", visibility: .private)
        registry.publish("q", "1.0.0", visibility: .private)
        registry.publish("pub", "1.0.0")
        let specs = [ModelSpec(id: "p", session: .environment("P_SESSION")), ModelSpec(id: "q", session: .environment("Q_SESSION")), ModelSpec(id: "pub")]
        let report = await Fixture.reconciler(store, registry, specs, options: Fixture.options(env: ["P_SESSION": "mks_p_token"])).run()
        #expect(report.outcome == .partialFailure)
        #expect(report["p"]?.status == .installed(version: "1.0.0"))
        #expect(registry.sessionTokens["p"] == "mks_p_token")
        #expect(report["q"]?.status == .blocked)
        #expect(report["q"]?.planned.action == .blocked(.sessionUnavailable("environment variable Q_SESSION is not set")))
        #expect(report["pub"]?.status == .installed(version: "1.0.0"))
        #expect(registry.calls("download q").isEmpty)
        #expect(!report.summary.contains("mks_p_token"))
    }

    @Test("a session is minted when the agent holds an sk_live_ key, and blocked otherwise")
    func mintedSession() async throws {
        let store = TestStore()
        let minting = FakeRegistry(storageDirectory: store.url, canIssueSessions: true)
        minting.publish("p", "1.0.0", visibility: .private)
        let spec = ModelSpec(id: "p", session: .mint(principalId: "fleet", ttlSec: 600))
        #expect(await Fixture.reconciler(store, minting, [spec]).run()["p"]?.status == .installed(version: "1.0.0"))
        #expect(minting.sessionTokens["p"] == "mks_minted_for_fleet")

        let other = TestStore()
        let publishable = FakeRegistry(storageDirectory: other.url, canIssueSessions: false)
        publishable.publish("p", "1.0.0", visibility: .private)
        let report = await Fixture.reconciler(other, publishable, [spec]).run()
        #expect(report["p"]?.status == .blocked)
        #expect(publishable.calls("session").isEmpty)
    }

    @Test("a session read from a command is used for the download")
    func commandSession() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("p", "1.0.0", visibility: .private)
        var options = Fixture.options()
        options.environment.runCommand = { argv in argv == ["/opt/get-token", "p"] ? "mks_from_command\n" : "" }
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "p", session: .command(["/opt/get-token", "p"]))], options: options).run()
        // /opt/get-token does not exist, so availability refuses it before running anything.
        #expect(report["p"]?.status == .blocked)
        let relative = await Fixture.reconciler(store, registry, [ModelSpec(id: "p", session: .command(["get-token", "p"]))], options: {
            var o = options
            o.environment.runCommand = { _ in "mks_from_command\n" }
            return o
        }()).run()
        #expect(relative["p"]?.status == .installed(version: "1.0.0"))
        #expect(registry.sessionTokens["p"] == "mks_from_command")
    }

    @Test("platform, lifecycle and compatibility filters apply end to end")
    func filters() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("mac-only", "1.0.0")
        registry.publish("staging", "1.0.0", status: .staging)
        registry.publish("big", "1.0.0", minRamMb: 1 << 20)
        registry.publish("ok", "1.0.0", platforms: [.linux])
        let specs = [ModelSpec(id: "mac-only", platforms: [.macos]), ModelSpec(id: "staging", isOptional: true),
                     ModelSpec(id: "big", isOptional: true), ModelSpec(id: "ok")]
        let report = await Fixture.reconciler(store, registry, specs).run()
        #expect(report.outcome == .changed)
        #expect(report.results.map(\.status) == [.skipped, .skipped, .skipped, .installed(version: "1.0.0")])
        #expect(registry.calls("get").sorted() == ["get big", "get ok", "get staging"])
        #expect(registry.calls("download") == ["download ok"])
        // Required, the same two block the run: the manifest asks for models it does not get.
        let required = [ModelSpec(id: "mac-only", platforms: [.macos]), ModelSpec(id: "staging"), ModelSpec(id: "big"), ModelSpec(id: "ok")]
        let strict = await Fixture.reconciler(store, registry, required).run()
        #expect(strict.outcome == .partialFailure)
        #expect(strict.results.map(\.status) == [.skipped, .blocked, .blocked, .unchanged(version: "1.0.0")])
    }

    @Test("events stream the plan, progress and results and end with the report")
    func events() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        var seen: [SyncEvent] = []
        for await event in Fixture.reconciler(store, registry, [ModelSpec(id: "a")]).events() { seen.append(event) }
        guard case .planReady(let plan)? = seen.first else { Issue.record("first event should be the plan"); return }
        #expect(plan["a"]?.action.name == "download")
        #expect(seen.contains(.progress(modelId: "a", bytesWritten: 15, totalBytes: 15)))
        guard case .finished(let report)? = seen.last else { Issue.record("last event should be the report"); return }
        #expect(report.outcome == .changed)
        #expect(seen.contains(.modelFinished(report.results[0])))
    }

    @Test("a dry run plans without downloading or recording")
    func dryRun() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        registry.publish("a", "1.0.0")
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "a")]).plan()
        #expect(report.outcome == .planned)
        #expect(report.plan?["a"]?.action.name == "download")
        #expect(registry.calls("download").isEmpty)
        #expect(store.readState() == nil)
    }

    @Test("a registry client storing elsewhere than the manifest's store is refused")
    func storeMismatch() async {
        let store = TestStore()
        let elsewhere = TestStore()
        let registry = FakeRegistry(storageDirectory: elsewhere.url)
        let report = await Fixture.reconciler(store, registry, [ModelSpec(id: "a")]).run()
        #expect(report.outcome == .failed)
        #expect(registry.calls.isEmpty)
    }

    @Test("the API key comes from the manifest's source and is validated")
    func keySource() throws {
        let store = TestStore()
        let manifest = Fixture.manifest(store, [])
        let good = Reconciler.Options(environment: SyncEnvironment(variables: ["MANASHIKI_API_KEY": "mk_pub_acme_0123456789abcdefghij"]))
        let reconciler = try Reconciler(manifest: manifest, options: good)
        #expect(reconciler.registry.storageDirectory == store.url)
        #expect(throws: SyncFailure.self) { try Reconciler(manifest: manifest, options: Reconciler.Options(environment: SyncEnvironment(variables: [:]))) }
        let bad = Reconciler.Options(environment: SyncEnvironment(variables: ["MANASHIKI_API_KEY": "mk_pub_acme_short"]))
        do { _ = try Reconciler(manifest: manifest, options: bad); Issue.record("expected a refusal") } catch {
            #expect(!"\(error)".contains("mk_pub_acme_short"))
        }
    }

    @Test("policies.partialRetentionHours reaches the download options (0 = only for the run); unset keeps the 7-day default",
          arguments: [(nil, 7 * 86_400), (0, 0), (48, 48 * 3600)] as [(Int?, TimeInterval)])
    func partialRetention(_ hours: Int?, _ seconds: TimeInterval) {
        let store = TestStore()
        var manifest = Fixture.manifest(store, [ModelSpec(id: "a")])
        manifest.policies.partialRetentionHours = hours
        let reconciler = Reconciler(manifest: manifest, registry: FakeRegistry(storageDirectory: store.url), options: Fixture.options())
        #expect(reconciler.downloadOptions.partialRetention == seconds)
    }

    @Test("policies.maxBytesPerSecond gives every download of a run the same limiter; the next run a fresh one")
    func oneLimiterPerRun() async throws {
        let store = TestStore()
        let registry = FakeRegistry(storageDirectory: store.url)
        for id in ["a", "b", "c"] { registry.publish(id, "1.0.0") }
        var manifest = Fixture.manifest(store, [ModelSpec(id: "a"), ModelSpec(id: "b"), ModelSpec(id: "c")], concurrency: 3)
        manifest.policies.maxBytesPerSecond = 20 << 20
        let first = await Reconciler(manifest: manifest, registry: registry, options: Fixture.options()).run()
        #expect(first.outcome == .changed)
        let limiters = registry.limiters.compactMap { $0 }
        #expect(limiters.count == 3)
        #expect(limiters.allSatisfy { $0 === limiters[0] && $0.bytesPerSecond == 20 << 20 })

        registry.publish("a", "1.0.1")
        _ = await Reconciler(manifest: manifest, registry: registry, options: Fixture.options()).run()
        #expect(registry.limiters.count == 4)
        #expect(registry.limiters.last??.bytesPerSecond == 20 << 20)
        #expect(registry.limiters.last! !== limiters[0], "a new run starts with a new budget")

        // Without the policy, no limiter; one given by the caller is used as is.
        manifest.policies.maxBytesPerSecond = nil
        var options = Fixture.options()
        let own = BandwidthLimiter(bytesPerSecond: 1 << 20)
        options.download.rateLimiter = own
        registry.publish("b", "1.0.1")
        _ = await Reconciler(manifest: manifest, registry: registry, options: options).run()
        #expect(registry.limiters.last! === own)
    }
}

import Testing
import Foundation
import Manashiki
@testable import ManashikiSync
import ManashikiCore

/// Builds planner inputs in memory: no disk, no network.
struct PlanWorld {
    var models: [ModelSpec] = []
    var prune = PrunePolicy()
    var policies = SyncPolicies()
    var device = DeviceProfile(platform: .ios, osVersion: "17.2", memoryMB: 6144)
    var catalog: [String: ModelRecord] = [:]
    var state = StoreState()
    var files: [String: StoreSnapshot.File] = [:]
    var sessions: [String: SessionAvailability] = [:]
    var recordFailures: [String: String] = [:]
    var invalidCatalogEntries: [String: String] = [:]
    var freeBytes: Int64? = 1 << 40
    var forcePrune = false
    var withholdRecords: Set<String> = []
    var budget: StoreBudget?
    var lastUse: [String: Date] = [:]
    var inUse: Set<String> = []
    var demanded: Set<String> = []
    var onlyDemanded = false

    static func sha(_ s: String) -> String { SHA256Hasher.hash(Data(s.utf8)).hex }

    mutating func publish(_ id: String, _ version: String, size: Int64 = 100, status: LifecycleStatus = .production,
                          visibility: ModelVisibility = .public, platforms: [Platform] = Platform.known,
                          minOs: String? = nil, minRamMb: Int? = nil, minDiskMb: Int? = nil) {
        catalog[id] = ModelRecord(modelId: id, version: version, size: size, sha256: Self.sha("\(id)@\(version)"),
                                  compatibility: ModelCompatibility(platforms: platforms, minOs: minOs, minRamMb: minRamMb, minDiskMb: minDiskMb),
                                  lifecycle: ModelLifecycle(status: status), visibility: visibility)
    }

    /// An installed, recorded file whose identity matches the state (trusted by stat).
    mutating func install(_ id: String, _ version: String, size: Int64 = 100, mtime: TimeInterval? = nil) {
        let nanoseconds = mtime.map { Int64($0 * 1e9) } ?? 1
        let identity = FileIdentity(size: size, mtimeNanoseconds: nanoseconds, inode: UInt64(abs(id.hashValue % 10_000)))
        state.models[id] = .init(version: version, sha256: Self.sha("\(id)@\(version)"), size: size, identity: identity)
        files[id] = StoreSnapshot.File(identity: identity)
    }

    /// A file that changed behind our back, re-hashed to the digest of `content`.
    mutating func tamper(_ id: String, hashedAs content: String?) {
        files[id] = StoreSnapshot.File(identity: FileIdentity(size: 100, mtimeNanoseconds: 999, inode: 1), hashedSHA256: content.map(Self.sha))
    }

    /// The usual starting point: a manifest with `spec`, the catalog serving `published`, and
    /// (optionally) `installed` recorded and trusted on disk.
    static func single(_ spec: ModelSpec = ModelSpec(id: "a"), published: String? = "1.0.0", installed: String? = nil) -> PlanWorld {
        var w = PlanWorld()
        w.models = [spec]
        if let installed { w.install(spec.id, installed) }
        if let published { w.publish(spec.id, published) }
        return w
    }

    var input: PlanInput {
        let manifest = Manifest(store: StoreSettings(directory: "/tmp/x", prune: prune, budget: budget), policies: policies, models: models)
        var records: [String: ModelRecord] = [:]
        for (id, r) in catalog where !withholdRecords.contains(id) { records[id] = r }
        return PlanInput(manifest: manifest, device: device, snapshot: StoreSnapshot(state: state, files: files),
                         catalog: catalog.values.map(\.entry).sorted { $0.modelId < $1.modelId },
                         invalidCatalogEntries: invalidCatalogEntries, records: records, recordFailures: recordFailures, sessions: sessions, freeBytes: freeBytes, forcePrune: forcePrune)
            .withUsage(lastUse: lastUse, inUse: inUse, demanded: demanded, onlyDemanded: onlyDemanded)
    }

    var plan: Plan { Planner.plan(input) }

    func target(_ id: String, needsSession: Bool = false) -> ArtifactTarget {
        let r = catalog[id]!
        return ArtifactTarget(version: r.version, sha256: r.sha256, size: r.size, needsSession: needsSession)
    }
}

/// One model, one world: what the planner decides for it, and why.
struct SingleModelCase: Sendable, CustomTestStringConvertible {
    var testDescription: String
    var world: @Sendable () -> PlanWorld
    var id = "a"
    var action: @Sendable (PlanWorld) -> PlanAction
    var reason: String?
    var warnings: [String]?
    /// The versions `Planner.recordsNeeded` asks for, when checked.
    var recordVersions: [String]?

    static let all: [SingleModelCase] = [
        .init(testDescription: "a new acceptable version replaces the installed one",
              world: { .single(ModelSpec(id: "a", version: .caret(ModelVersion("1.0")!)), published: "1.1.0", installed: "1.0.0") },
              action: { .replace(from: "1.0.0", to: $0.target("a"), because: .upgrade) },
              reason: "1.0.0 → 1.1.0: the registry serves a newer version satisfying ^1.0",
              recordVersions: ["1.1.0"]),
        .init(testDescription: "a file changed on disk whose digest no longer matches is replaced",
              world: { var w = PlanWorld.single(installed: "1.0.0"); w.tamper("a", hashedAs: "garbage"); return w },
              action: { .replace(from: "1.0.0", to: $0.target("a"), because: .corrupt("its SHA-256 no longer matches the installed 1.0.0")) }),
        .init(testDescription: "a file touched but intact is re-recorded (verify), not downloaded",
              world: { var w = PlanWorld.single(installed: "1.0.0"); w.tamper("a", hashedAs: "a@1.0.0"); return w },
              action: { _ in .verify(version: "1.0.0", sha256: PlanWorld.sha("a@1.0.0"), size: 100) }),
        .init(testDescription: "a recorded file that is missing is downloaded again",
              world: { var w = PlanWorld.single(installed: "1.0.0"); w.files["a"] = nil; return w },
              action: { .download($0.target("a")) },
              reason: "install 1.0.0 (the recorded file is missing)"),
        .init(testDescription: "entries for other platforms are filtered out",
              world: { .single(ModelSpec(id: "a", platforms: [.macos, .linux])) },
              action: { _ in .skip(.filteredOut) },
              reason: "the entry applies to macos, linux; this device is ios",
              recordVersions: []),
        .init(testDescription: "an upgrade that is incompatible keeps the installed version with a warning",
              world: { var w = PlanWorld.single(published: nil, installed: "1.0.0"); w.publish("a", "2.0.0", minOs: "19.0"); return w },
              action: { _ in .keep(version: "1.0.0") },
              warnings: ["2.0.0 is available but not installed: incompatible with this device: needs OS 19.0 or later, the device has 17.2"]),
        .init(testDescription: "a record that could not be fetched blocks the model with the reason",
              world: {
                  var w = PlanWorld.single()
                  w.withholdRecords = ["a"]
                  w.recordFailures = ["a": "the registry is rate limiting this key"]
                  return w
              },
              action: { _ in .blocked(.recordUnavailable("the registry is rate limiting this key")) }),
        .init(testDescription: "a model missing from the catalog is blocked",
              world: { .single(ModelSpec(id: "ghost"), published: nil) }, id: "ghost",
              action: { _ in .blocked(.notInCatalog) }),
    ]
}

/// A world whose plan for one model changes when one setting changes (a limit, a flag, a policy).
struct SettingCase: Sendable, CustomTestStringConvertible {
    var testDescription: String
    var world: @Sendable () -> PlanWorld
    var id: String
    var before: @Sendable (PlanWorld) -> PlanAction
    var change: @Sendable (inout PlanWorld) -> Void
    var after: @Sendable (PlanWorld) -> PlanAction

    static let all: [SettingCase] = [
        .init(testDescription: "more prunes than maxDeletes block every prune unless forced",
              world: {
                  var w = PlanWorld.single(installed: "1.0.0")
                  for id in ["x", "y", "z"] { w.install(id, "1.0.0") }
                  w.prune.maxDeletes = 2
                  return w
              }, id: "x",
              before: { _ in .blocked(.pruneLimit(count: 3, max: 2)) },
              change: { $0.forcePrune = true },
              after: { _ in .prune(version: "1.0.0") }),
        .init(testDescription: "an empty manifest never prunes unless allowed or forced",
              world: { var w = PlanWorld(); w.install("x", "1.0.0"); return w }, id: "x",
              before: { _ in .blocked(.emptyManifest) },
              change: { $0.prune.allowEmptyManifest = true },
              after: { _ in .prune(version: "1.0.0") }),
    ]
}

@Suite("Planner")
struct PlannerTests {
    @Test("one model: the action, its reason, warnings and the records needed", arguments: SingleModelCase.all)
    func singleModel(_ c: SingleModelCase) {
        let w = c.world()
        let item = w.plan[c.id]
        #expect(item?.action == c.action(w))
        if let reason = c.reason { #expect(item?.reason == reason) }
        if let warnings = c.warnings { #expect(item?.warnings == warnings) }
        if let versions = c.recordVersions { #expect(Planner.recordsNeeded(w.input).map(\.version) == versions) }
    }

    @Test("one setting turns a blocked action into the planned one", arguments: SettingCase.all)
    func setting(_ c: SettingCase) {
        var w = c.world()
        #expect(w.plan[c.id]?.action == c.before(w))
        c.change(&w)
        #expect(w.plan[c.id]?.action == c.after(w))
    }

    @Test("a first sync downloads every wanted model and totals the bytes")
    func firstSync() {
        var w = PlanWorld()
        w.models = [ModelSpec(id: "a"), ModelSpec(id: "b", version: .caret(ModelVersion("1.0")!))]
        w.publish("a", "1.0.0", size: 10)
        w.publish("b", "1.3.0", size: 32)
        let plan = w.plan
        #expect(plan.items.map(\.action) == [.download(w.target("a")), .download(w.target("b"))])
        #expect(plan.bytesToFetch == 42)
        #expect(plan.refusal == nil)
        #expect(plan["a"]?.reason == "install 1.0.0")
        #expect(Planner.recordsNeeded(w.input).map(\.modelId) == ["a", "b"])
    }

    @Test("a no-op sync keeps everything and needs no record")
    func noOp() {
        var w = PlanWorld.single(installed: "1.0.0")
        w.withholdRecords = ["a"]
        #expect(Planner.recordsNeeded(w.input).isEmpty)
        let plan = w.plan
        #expect(plan.items == [PlanItem(modelId: "a", action: .keep(version: "1.0.0"), reason: "1.0.0 is current")])
        #expect(!plan.changesStore)
        #expect(plan.bytesToFetch == 0)
    }

    @Test("a cached record is not asked for again")
    func cachedRecord() {
        var w = PlanWorld.single(published: "2.0.0")
        w.state.cache(w.catalog["a"]!)
        #expect(Planner.recordsNeeded(w.input).isEmpty)
    }

    @Test("a model removed from the manifest is pruned; untracked files only in mode all; never in mode off")
    func prune() {
        var w = PlanWorld.single(installed: "1.0.0")
        w.install("old", "0.9.0")
        w.files["handmade"] = StoreSnapshot.File(identity: FileIdentity(size: 1, mtimeNanoseconds: 1, inode: 1))
        #expect(w.plan.items.filter { $0.action.name == "prune" }.map(\.modelId) == ["old"])
        #expect(w.plan["old"]?.action == .prune(version: "0.9.0"))
        w.prune.mode = .all
        #expect(w.plan.items.filter { $0.action.name == "prune" }.map(\.modelId) == ["handmade", "old"])
        w.prune.mode = .off
        #expect(w.plan.items.filter { $0.action.name == "prune" }.isEmpty)
    }

    @Test("a file of the wrong size is replaced without hashing")
    func truncated() {
        var w = PlanWorld.single(installed: "1.0.0")
        w.tamper("a", hashedAs: nil)
        guard case .replace(_, _, .corrupt(let why))? = w.plan["a"]?.action else { Issue.record("expected a replace"); return }
        #expect(why.contains("size"))
    }

    @Test("without a state file, a file matching the catalog is adopted and others are replaced")
    func adoption() {
        var w = PlanWorld()
        w.models = [ModelSpec(id: "a"), ModelSpec(id: "b")]
        w.publish("a", "1.0.0")
        w.publish("b", "1.0.0")
        w.tamper("a", hashedAs: "a@1.0.0")
        w.tamper("b", hashedAs: "half of b")
        #expect(w.plan["a"]?.action == .verify(version: "1.0.0", sha256: PlanWorld.sha("a@1.0.0"), size: 100))
        #expect(w.plan["b"]?.action == .replace(from: nil, to: w.target("b"), because: .corrupt("the file on disk matches no known artifact of this model")))
    }

    @Test("lifecycle: staging is blocked, deprecated is installed with a warning, sunset is blocked")
    func lifecycle() {
        var w = PlanWorld()
        w.models = [ModelSpec(id: "s"), ModelSpec(id: "d"), ModelSpec(id: "x")]
        w.publish("s", "1.0.0", status: .staging)
        w.publish("d", "1.0.0", status: .deprecated)
        w.publish("x", "1.0.0", status: .sunset)
        let plan = w.plan
        #expect(plan["s"]?.action == .blocked(.lifecycle(.staging)))
        #expect(plan["s"]?.reason == "1.0.0 is staging; the policies accept production, deprecated")
        #expect(plan["d"]?.action == .download(w.target("d")))
        #expect(plan["d"]?.warnings == ["1.0.0 is deprecated; plan a move to its successor"])
        #expect(plan["x"]?.action == .blocked(.sunset))
        w.policies.allowedStatuses = [.production, .staging]
        #expect(w.plan["s"]?.action == .download(w.target("s")))
    }

    @Test("compatibility: platforms, min_os, RAM and disk are checked against the device profile")
    func compatibility() {
        var w = PlanWorld()
        w.models = ["p", "o", "r", "k", "ok"].map { ModelSpec(id: $0) }
        w.publish("p", "1.0.0", platforms: [.android])
        w.publish("o", "1.0.0", minOs: "18.0")
        w.publish("r", "1.0.0", minRamMb: 8192)
        w.publish("k", "1.0.0", minDiskMb: 2048)
        w.publish("ok", "1.0.0", platforms: [.ios], minOs: "17.0", minRamMb: 4096, minDiskMb: 1)
        w.freeBytes = 1 << 30
        let plan = w.plan
        #expect(plan["p"]?.action == .blocked(.incompatible([.platform(supported: [.android], device: .ios)])))
        #expect(plan["o"]?.action == .blocked(.incompatible([.osVersion(needs: "18.0", device: "17.2")])))
        #expect(plan["r"]?.action == .blocked(.incompatible([.memory(needsMB: 8192, deviceMB: 6144)])))
        #expect(plan["k"]?.action == .blocked(.incompatible([.freeDisk(needsMB: 2048, freeMB: 1024)])))
        #expect(plan["ok"]?.action == .download(w.target("ok")))
        w.policies.checkCompatibility = false
        #expect(w.plan["p"]?.action == .download(w.target("p")))
    }

    @Test("an exact pin older than the catalog keeps the installed version; unsatisfiable pins are blocked")
    func versionPins() {
        var w = PlanWorld()
        w.models = [ModelSpec(id: "a", version: .exact(ModelVersion("1.0.0")!)), ModelSpec(id: "b", version: .exact(ModelVersion("1.0.0")!))]
        w.install("a", "1.0.0")
        w.publish("a", "1.1.0")
        w.publish("b", "1.1.0")
        #expect(w.plan["a"]?.action == .keep(version: "1.0.0"))
        #expect(w.plan["a"]?.reason == "1.0.0 satisfies 1.0.0; the registry serves 1.1.0, which does not")
        #expect(w.plan["b"]?.action == .blocked(.pinUnsatisfiable))
        #expect(w.plan["b"]?.reason.hasPrefix("the registry serves 1.1.0") == true)
    }

    @Test("a sha256 pin installs only that artifact and replaces a different installed one")
    func shaPins() {
        var w = PlanWorld()
        w.publish("a", "1.0.0")
        w.publish("b", "1.0.0")
        w.models = [ModelSpec(id: "a", sha256: w.catalog["a"]!.sha256), ModelSpec(id: "b", sha256: PlanWorld.sha("other"))]
        #expect(w.plan["a"]?.action == .download(w.target("a")))
        #expect(w.plan["b"]?.action == .blocked(.pinUnsatisfiable))
        // Installed a different artifact of the same version: the pin forces a replacement.
        w.state.models["a"] = .init(version: "1.0.0", sha256: PlanWorld.sha("old bytes"), size: 100, identity: FileIdentity(size: 100, mtimeNanoseconds: 1, inode: 5))
        w.files["a"] = StoreSnapshot.File(identity: FileIdentity(size: 100, mtimeNanoseconds: 1, inode: 5))
        #expect(w.plan["a"]?.action == .replace(from: "1.0.0", to: w.target("a"), because: .requirementChanged))
    }

    @Test("a catalog rollback is refused unless the manifest pins exactly that version")
    func rollback() {
        var w = PlanWorld()
        w.models = [ModelSpec(id: "a", version: .caret(ModelVersion("1.0")!))]
        w.install("a", "1.5.0")
        w.publish("a", "1.2.0")
        #expect(w.plan["a"]?.action == .keep(version: "1.5.0"))
        #expect(w.plan["a"]?.warnings.first?.contains("rollback refused") == true)
        w.models = [ModelSpec(id: "a", version: .caret(ModelVersion("2.0")!))]
        w.install("a", "2.1.0")
        w.publish("a", "1.9.0")
        #expect(w.plan["a"]?.action == .keep(version: "2.1.0"))
        w.models = [ModelSpec(id: "a", version: .tilde(ModelVersion("1")!))]
        #expect(w.plan["a"]?.action == .blocked(.rollbackRefused(installed: "2.1.0", catalog: "1.9.0")))
        w.models = [ModelSpec(id: "a", version: .exact(ModelVersion("1.9.0")!))]
        #expect(w.plan["a"]?.action == .replace(from: "2.1.0", to: w.target("a"), because: .requirementChanged))
    }

    @Test("a private model downloads with a session and is blocked without one")
    func privateModels() {
        var w = PlanWorld()
        w.publish("p", "1.0.0", visibility: .private)
        w.publish("q", "1.0.0", visibility: .private)
        w.publish("r", "1.0.0", visibility: .private)
        w.models = [ModelSpec(id: "p", session: .environment("S")), ModelSpec(id: "q"), ModelSpec(id: "r", session: .mint(principalId: "x", ttlSec: 60))]
        w.sessions = ["p": .available, "r": .unavailable("minting a session needs a legacy sk_live_ key")]
        let plan = w.plan
        #expect(plan["p"]?.action == .download(w.target("p", needsSession: true)))
        #expect(plan["q"]?.action == .blocked(.sessionUnavailable("no session source is configured for this private model")))
        #expect(plan["q"]?.reason.contains(#""session": {"env": …}"#) == true)
        #expect(plan["r"]?.action == .blocked(.sessionUnavailable("minting a session needs a legacy sk_live_ key")))
        #expect(plan.blocked.map(\.modelId) == ["q", "r"])
    }

    @Test("a sha256 pin that no served artifact matches blocks the model and keeps the other installed version")
    func shaPinWithOtherVersionInstalled() {
        var w = PlanWorld()
        w.install("a", "1.0.0")
        w.publish("a", "1.1.0")
        w.models = [ModelSpec(id: "a", sha256: PlanWorld.sha("nothing serves this"))]
        #expect(w.plan["a"]?.action == .blocked(.pinUnsatisfiable))
        #expect(w.plan["a"]?.reason.contains("the installed 1.0.0 does not satisfy it either") == true)
        #expect(w.plan.blocked.map(\.modelId) == ["a"])
    }

    @Test("an optional entry the run cannot deliver is skipped with a warning; a required one is blocked")
    func optionalEntries() {
        var w = PlanWorld()
        w.publish("staged", "1.0.0", status: .staging)
        w.publish("old", "1.0.0")
        w.models = [ModelSpec(id: "ghost", isOptional: true), ModelSpec(id: "staged", isOptional: true),
                    ModelSpec(id: "old", version: .caret(ModelVersion("2.0")!), isOptional: true), ModelSpec(id: "ghost2")]
        let plan = w.plan
        #expect(plan["ghost"]?.action == .skip(.optional(.notInCatalog)))
        #expect(plan["ghost"]?.reason == "optional, not installed: the registry's catalog does not list this model")
        #expect(plan["ghost"]?.warnings == ["optional model not installed: the registry's catalog does not list this model"])
        #expect(plan["staged"]?.action == .skip(.optional(.lifecycle(.staging))))
        #expect(plan["old"]?.action == .skip(.optional(.pinUnsatisfiable)))
        #expect(plan["ghost2"]?.action == .blocked(.notInCatalog))
        #expect(plan.blocked.map(\.modelId) == ["ghost2"])
        // A record that could not be fetched is a failure of this run, not a property of the model.
        w.models = [ModelSpec(id: "old", isOptional: true)]
        w.withholdRecords = ["old"]
        w.recordFailures = ["old": "HTTP 503"]
        #expect(w.plan["old"]?.action == .blocked(.recordUnavailable("HTTP 503")))
    }

    @Test("an invalid catalog entry blocks only that model; an installed version of it stays untouched")
    func invalidCatalogEntry() {
        var w = PlanWorld()
        w.publish("good", "1.0.0")
        w.models = [ModelSpec(id: "bad"), ModelSpec(id: "good"), ModelSpec(id: "kept")]
        w.invalidCatalogEntries = ["bad": "has a negative size", "kept": "has a negative size"]
        w.install("kept", "1.0.0")
        let plan = w.plan
        #expect(plan["bad"]?.action == .blocked(.invalidCatalogEntry("has a negative size")))
        #expect(plan["bad"]?.reason == "the registry's catalog entry for this model is invalid (has a negative size)")
        #expect(plan["good"]?.action == .download(w.target("good")))
        #expect(plan["kept"]?.action == .blocked(.invalidCatalogEntry("has a negative size")))
        #expect(plan["kept"]?.reason == "the registry's catalog entry for this model is invalid (has a negative size); the installed 1.0.0 stays untouched")
        #expect(plan.blocked.map(\.modelId) == ["bad", "kept"])
    }

    @Test("the plan is refused when the volume lacks space for every temporary copy")
    func diskSpace() {
        var w = PlanWorld()
        w.models = [ModelSpec(id: "a"), ModelSpec(id: "b")]
        w.publish("a", "2.0.0", size: 600)
        w.install("a", "1.0.0", size: 500)
        w.publish("b", "1.0.0", size: 300)
        w.freeBytes = 800 // the replaced file stays until the rename: 600 + 300 are needed
        #expect(w.plan.refusal == .insufficientDiskSpace(needed: 900, available: 800))
        w.freeBytes = 900
        #expect(w.plan.refusal == nil)
    }

    @Test("sizes whose total passes Int64 (two of 2^63 - 1, past the readers' checks) never trap: the total is clamped and the plan refused for space",
          arguments: [nil, StoreBudget(maxBytes: 1 << 30)])
    func hugeSizesNeverTrap(budget: StoreBudget?) {
        var w = PlanWorld()
        w.models = [ModelSpec(id: "a"), ModelSpec(id: "b"), ModelSpec(id: "c")]
        w.publish("a", "1.0.0", size: .max)
        w.publish("b", "1.0.0", size: .max)
        w.publish("c", "1.0.0", size: 100)
        w.install("c", "0.9.0", size: .max)
        w.budget = budget
        w.freeBytes = 1 << 40
        let plan = w.plan // before the clamped totals, `reduce(0, +)` trapped here (SIGILL)
        #expect(plan.bytesToFetch == .max)
        #expect(plan.refusal != nil)
        if budget == nil { #expect(plan.refusal == .insufficientDiskSpace(needed: .max, available: 1 << 40)) }
    }

    @Test("the preflight counts only the remaining bytes of a model with a kept partial of the same artifact")
    func diskSpaceWithKeptPartial() {
        var w = PlanWorld()
        w.models = [ModelSpec(id: "a"), ModelSpec(id: "b")]
        w.publish("a", "1.0.0", size: 600)
        w.publish("b", "1.0.0", size: 300)
        w.freeBytes = 500
        var input = w.input
        let a = w.target("a")
        input.partials["a"] = [PartialDownload(sha256: a.sha256, size: 600, bytes: 450)]
        // Another artifact's partial (the catalog moved on) is discarded, not resumed: no credit.
        input.partials["b"] = [PartialDownload(sha256: PlanWorld.sha("b@0.9.0"), size: 300, bytes: 250)]
        #expect(Planner.plan(input).refusal == nil, "needs 150 + 300")
        #expect(Planner.plan(input).bytesToFetch == 900, "bytesToFetch stays the artifacts' sizes (the progress total)")
        input.partials["a"] = [PartialDownload(sha256: a.sha256, size: 600, bytes: 350)]
        #expect(Planner.plan(input).refusal == .insufficientDiskSpace(needed: 250 + 300, available: 500))
    }

    @Test("the same inputs always give the same plan")
    func pure() {
        var w = PlanWorld()
        w.models = [ModelSpec(id: "a"), ModelSpec(id: "b")]
        w.publish("a", "1.0.0")
        w.publish("b", "1.0.0")
        w.install("c", "1.0.0")
        #expect(Planner.plan(w.input) == Planner.plan(w.input))
    }
}

extension PlanInput {
    func withUsage(lastUse: [String: Date], inUse: Set<String>, demanded: Set<String>, onlyDemanded: Bool) -> PlanInput {
        var copy = self
        copy.onlyDemanded = onlyDemanded
        copy.lastUse = lastUse
        copy.inUse = inUse
        copy.demanded = demanded
        return copy
    }
}

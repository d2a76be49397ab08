import Foundation
import Testing
import Manashiki
@testable import ManashikiSync

/// macOS outside a sandbox: every app and the CLI share ~/Library/Application Support/ManashikiModels
/// and its one state file. One owner's prune must never delete what another still wants.
@Suite("Shared store: per-owner prune safety")
struct SharedStoreTests {
    func run(_ store: TestStore, _ registry: FakeRegistry, _ ids: [String], owner: String,
             prune: PrunePolicy = PrunePolicy()) async -> SyncReport {
        var options = Fixture.options()
        options.owner = owner
        return await Fixture.reconciler(store, registry, ids.map { ModelSpec(id: $0) }, prune: prune, options: options).run()
    }

    func registry(_ store: TestStore) -> FakeRegistry {
        let registry = FakeRegistry(storageDirectory: store.url)
        for id in ["a", "b", "shared"] { registry.publish(id, "1.0.0") }
        return registry
    }

    @Test("app A's tracked prune leaves app B's models and a model both want; the last owner's prune deletes it")
    func tracked() async throws {
        let store = TestStore()
        let registry = registry(store)
        #expect(await run(store, registry, ["a", "shared"], owner: "com.example.A").outcome == .changed)
        #expect(await run(store, registry, ["b", "shared"], owner: "com.example.B").outcome == .changed)
        #expect(store.readState()?.models["shared"]?.owners == ["com.example.A", "com.example.B"])
        #expect(store.readState()?.models["b"]?.owners == ["com.example.B"])

        // A no longer wants anything but an empty-looking list is refused, so keep one model: "a" goes, "shared" stays.
        let a = await run(store, registry, ["a"], owner: "com.example.A")
        #expect(a.outcome == .inSync || a.outcome == .changed)
        #expect(store.contents("b") != nil)
        #expect(store.contents("shared") != nil)
        #expect(store.readState()?.models["shared"]?.owners == ["com.example.B"])
        #expect(!a.results.contains { $0.status == .pruned })

        // A drops "a": only A wanted it, so it is pruned; B's models stay.
        let dropped = await run(store, registry, ["shared"], owner: "com.example.A")
        #expect(dropped["a"]?.status == .pruned)
        #expect(store.contents("b") != nil)
        #expect(store.readState()?.models["shared"]?.owners == ["com.example.A", "com.example.B"])

        // B drops "shared" while A still wants it: kept. Then A drops it too: deleted.
        _ = await run(store, registry, ["b"], owner: "com.example.B")
        #expect(store.contents("shared") != nil)
        #expect(store.readState()?.models["shared"]?.owners == ["com.example.A"])
        let last = await run(store, registry, ["a"], owner: "com.example.A")
        #expect(last["shared"]?.status == .pruned)
        #expect(store.contents("shared") == nil)
        #expect(store.contents("b") != nil)
    }

    @Test("prune mode all removes untracked files but never a model another owner claims")
    func all() async throws {
        let store = TestStore()
        let registry = registry(store)
        _ = await run(store, registry, ["b"], owner: "com.example.B")
        store.write("stray", "copied in by hand")
        let report = await run(store, registry, ["a"], owner: "com.example.A", prune: PrunePolicy(mode: .all))
        #expect(report["stray"]?.status == .pruned)
        #expect(report["b"] == nil)
        #expect(store.contents("b") != nil)
    }

    @Test("the planner: a candidate claimed by another owner is not pruned; legacy entries (no owners) are this owner's")
    func planner() {
        let identity = FileIdentity(size: 1, mtimeNanoseconds: 1, inode: 1)
        var state = StoreState()
        state.models["mine"] = .init(version: "1", sha256: String(repeating: "a", count: 64), size: 1, identity: identity, owners: ["A"])
        state.models["theirs"] = .init(version: "1", sha256: String(repeating: "b", count: 64), size: 1, identity: identity, owners: ["B"])
        state.models["both"] = .init(version: "1", sha256: String(repeating: "c", count: 64), size: 1, identity: identity, owners: ["A", "B"])
        state.models["legacy"] = .init(version: "1", sha256: String(repeating: "d", count: 64), size: 1, identity: identity)
        let files = Dictionary(uniqueKeysWithValues: ["mine", "theirs", "both", "legacy", "keep"].map { ($0, StoreSnapshot.File(identity: identity)) })
        let manifest = Manifest(models: [ModelSpec(id: "keep")])
        let input = PlanInput(manifest: manifest, device: Fixture.linux, snapshot: StoreSnapshot(state: state, files: files),
                              catalog: [], owner: "A")
        let pruned = Planner.prunes(input).filter { if case .prune = $0.action { return true } else { return false } }.map(\.modelId)
        #expect(pruned == ["legacy", "mine"])
    }
}

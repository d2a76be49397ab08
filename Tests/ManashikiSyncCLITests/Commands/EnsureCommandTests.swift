#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
import ManashikiTestSupport
import ManashikiSync
import Manashiki

/// Another process that holds a model's lease: Python's `fcntl.flock(LOCK_SH)` on its lease file,
/// the protocol `ModelLease` speaks (a shared flock on `.manashiki/leases/<id>.lease`), written
/// independently of this package.
final class LeaseHolder: @unchecked Sendable {
    let child: RunningChild

    init(_ modelId: String, store: URL) async throws {
        let leases = store.appendingPathComponent(".manashiki/leases")
        try FileManager.default.createDirectory(at: leases, withIntermediateDirectories: true)
        let file = leases.appendingPathComponent("\(modelId).lease").path
        let script = "import fcntl, sys, time\nf = open(sys.argv[1], 'a')\nfcntl.flock(f, fcntl.LOCK_SH)\nprint('leased', flush=True)\ntime.sleep(120)"
        child = try RunningChild.start(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, file], in: store)
        let leased = await child.waitForOutput(timeout: 30) { $0.contains("leased") }
        #expect(leased, "python3 did not take the lease")
    }

    func release() async {
        child.send(SIGKILL)
        _ = await child.finish(timeout: 10)
    }
}

@Suite("ensure and leases (built binary against the development registry)")
struct EnsureCommandTests {
    /// req 40 KiB required; d1, d2, d3 30 KiB on demand; a 100 KiB budget holds req and two of them.
    static func fixture() throws -> BudgetFixture {
        let f = try BudgetFixture(sizes: ["req": 40, "d1": 30, "d2": 30, "d3": 30])
        try f.write(budget: #"{"maxBytes": "100KiB"}"#, models: [BudgetFixture.entry("req")]
                    + ["d1", "d2", "d3"].map { BudgetFixture.entry($0, #", "class": "onDemand""#) })
        return f
    }

    @Test("sync never fetches on-demand models; ensure installs them and records a use; an ensure that needs room evicts the least recently used")
    func ensureEvictsLRU() async throws {
        let f = try Self.fixture()
        #expect(try await f.run(["sync"]).status == 0)
        #expect(f.installed() == ["req"])
        for id in ["d1", "d2", "d1"] { // d1 used again: d2 is now the least recently used
            let r = try await f.run(["ensure", id])
            #expect(r.status == 0, "\(r.all)")
        }
        #expect(f.installed() == ["d1", "d2", "req"])
        let usage = StoreUsage.read(StoreLayout(directory: f.store)).usage
        #expect(Set(usage.models.keys) == ["d1", "d2"])
        let r = try await f.run(["ensure", "d3", "--json"])
        #expect(r.status == 0, "\(r.all)")
        #expect(f.installed() == ["d1", "d3", "req"])
        let results = try #require(r.summary()["models"] as? [[String: Any]])
        #expect(results.first { $0["modelId"] as? String == "d2" }?["status"] as? String == "evicted")
        let status = try await f.run(["status"])
        #expect(status.stdout.contains("Budget: 100.0 KiB for models (store.budget.maxBytes); 100.0 KiB used, 0 B left"), "\(status.stdout)")
        let d1 = try #require(status.stdout.split(separator: "\n").first { $0.hasPrefix("d1 ") })
        #expect(d1.contains("onDemand") && d1.range(of: #"\d{4}-\d{2}-\d{2} \d{2}:\d{2}$"#, options: .regularExpression) != nil, "\(d1)") // class, last use
        let json = try await f.run(["status", "--json"])
        let models = try #require(json.summary()["models"] as? [[String: Any]])
        #expect(models.first { $0["modelId"] as? String == "d1" }?["class"] as? String == "onDemand")
        #expect(models.first { $0["modelId"] as? String == "d1" }?["lastUsed"] is String)
        #expect(models.first { $0["modelId"] as? String == "req" }?["lastUsed"] is NSNull)
        let budget = try #require(json.summary()["budget"] as? [String: Any])
        #expect(budget["usedBytes"] as? Int == 100 << 10 && budget["capacityBytes"] as? Int == 100 << 10)
        // The next sync leaves the on-demand models as they are: within budget, nothing to do.
        let sync = try await f.run(["sync"])
        #expect(sync.status == 0 && f.installed() == ["d1", "d3", "req"], "\(sync.all)")
    }

    @Test("a lease held by another process prevents the eviction of its model; when every candidate is leased the ensure is refused (exit 3)", .requires(.python3))
    func leaseProtects() async throws {
        let f = try Self.fixture()
        #expect(try await f.run(["sync"]).status == 0)
        for id in ["d1", "d2"] { #expect(try await f.run(["ensure", id]).status == 0) }
        let holdD1 = try await LeaseHolder("d1", store: f.store) // d1, the least recently used, is in use
        let r = try await f.run(["ensure", "d3"])
        #expect(r.status == 0, "\(r.all)")
        #expect(f.installed() == ["d1", "d3", "req"])
        let holdD3 = try await LeaseHolder("d3", store: f.store)
        let refused = try await f.run(["ensure", "d2"])
        #expect(refused.status == 3, "\(refused.all)")
        #expect(refused.stderr.contains("in use (d1, d3)"), "\(refused.stderr)")
        #expect(f.installed() == ["d1", "d3", "req"])
        await holdD1.release()
        await holdD3.release()
        // A dead holder's lease is gone with it (the kernel drops its flock).
        #expect(try await f.run(["ensure", "d2"]).status == 0)
        #expect(f.installed().count == 3 && f.installed().contains("d2"))
    }

    @Test("ModelLease: taking a lease pins the model against an ensure in another process, and records a use")
    func libraryLease() async throws {
        let f = try Self.fixture()
        #expect(try await f.run(["sync"]).status == 0)
        for id in ["d1", "d2"] { #expect(try await f.run(["ensure", id]).status == 0) }
        let lease = try ModelLease.acquire("d1", storeDirectory: f.store)
        #expect(lease.fileURL.lastPathComponent == "d1.bin")
        // d1 was used last (the lease), so d2 goes; then with d1 leased and d3 needing room, only d2 could.
        let r = try await f.run(["ensure", "d3"])
        #expect(r.status == 0, "\(r.all)")
        #expect(f.installed() == ["d1", "d3", "req"])
        lease.release()
        #expect(throws: ModelLeaseError.notInstalled(modelId: "d2", path: f.store.appendingPathComponent("d2.bin").path)) {
            try ModelLease.acquire("d2", storeDirectory: f.store)
        }
    }

    @Test("ensure of an id the manifest does not list is exit 2 naming it and the nearest id; nothing runs")
    func unknownId() async throws {
        let f = try Self.fixture()
        let r = try await f.run(["ensure", "d4x", "req"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("\"d4x\" is not in the manifest's models (did you mean \"d1\"?)"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: f.store.path))
        let none = try await f.run(["ensure"])
        #expect(none.status == 2)
        #expect(none.stderr.contains("ensure needs the ids"), "\(none.stderr)")
    }
}

/// A small tmpfs (root only): keepFreeBytes measured on a real volume.
@Suite("store budgets on a small volume (tmpfs, root)")
struct KeepFreeVolumeTests {
    static let isRoot = getuid() == 0

    @Test("keepFreeBytes: optional models stop where the volume would have less free space than the reserve",
          .enabled(if: isRoot, "mounting a tmpfs needs root"))
    func keepFree() async throws {
        let f = try BudgetFixture(sizes: ["req": 100, "o1": 100, "o2": 100, "o3": 100])
        let volume = f.directory.appendingPathComponent("volume")
        try FileManager.default.createDirectory(at: volume, withIntermediateDirectories: true)
        let mount = RunningChild.run(URL(fileURLWithPath: "/usr/bin/mount"), ["-t", "tmpfs", "-o", "size=1m", "tmpfs", volume.path])
        try #require(mount.status == 0, "mount: \(mount.all)")
        defer { _ = try? RunningChild.start(URL(fileURLWithPath: "/usr/bin/umount"), ["-l", volume.path], in: f.directory).waitForExit() }
        // About 1 MiB free: the capacity is that less 650 KiB, room for req and two optional models.
        try f.write(budget: #"{"keepFreeBytes": "650KiB"}"#, models: [BudgetFixture.entry("req")]
                    + ["o1", "o2", "o3"].map { BudgetFixture.entry($0, #", "class": "optional""#) }, store: volume.appendingPathComponent("models").path)
        let r = try await f.run(["sync"])
        #expect(r.status == 0, "\(r.all)")
        let store = volume.appendingPathComponent("models")
        #expect(f.installed(in: store) == ["o1", "o2", "req"])
        let free = try #require(try FileManager.default.attributesOfFileSystem(forPath: store.path)[.systemFreeSize] as? NSNumber).int64Value
        #expect(free >= 650 << 10, "free \(free)")
        #expect(r.stdout.contains("store.budget.keepFreeBytes (650.0 KiB kept free on the volume)"), "\(r.stdout)")
    }
}
#endif

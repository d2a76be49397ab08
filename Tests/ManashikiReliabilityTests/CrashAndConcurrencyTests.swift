#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Testing
import Manashiki
import ManashikiRegistry
#if canImport(Glibc)
import Glibc
#endif

/// Kills, signals, overlapping runs, locks, and the durability order. Serialized: these send
/// signals and trace processes, and each cleans up its children even on failure. Covered
/// elsewhere: StoreLock semantics in-process (ManashikiSyncTests StoreLockTests) and leftover
/// cleaning rules (LeftoverCleanerTests).
@Suite("Reliability: crashes and concurrency", .serialized)
struct CrashAndConcurrencyTests {
    @Test("kill -9 at random points during 20 syncs: every rerun completes, every file verifies, no stray files")
    func killNine() async throws {
        let f = try SyncFixture()
        var generator = SystemRandomNumberGenerator()
        var killedMidTransfer = 0
        for round in 0..<20 {
            // A new version of every model each round, so each round has transfers to interrupt.
            for (i, id) in ["alpha", "beta", "gamma"].enumerated() {
                try f.publishNewVersion(id, version: "1.\(round + 1).0", seed: UInt64(1000 + round * 3 + i))
            }
            f.registry.setFault(.slowDrip(chunkBytes: 8 << 10, intervalMilliseconds: 30), modelId: nil, endpoint: .storage)
            let running = try f.start()
            if round.isMultiple(of: 2) {
                // Even rounds: a random point from the start (startup, lock, planning, transfer).
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...350, using: &generator)))
                if f.registry.openDownloads > 0 { killedMidTransfer += 1 }
                running.send(SIGKILL)
            } else {
                // Odd rounds: a random point once a transfer is under way, chosen and signalled
                // from a thread of its own so that a busy cooperative pool cannot make it miss
                // the transfer (a loaded CI machine once made every odd round kill too late).
                let registry = f.registry
                let delay = Double(Int.random(in: 0...120, using: &generator)) / 1000
                let landed = await running.send(SIGKILL, when: { registry.openDownloads > 0 }, delay: delay, timeout: 20)
                if landed { killedMidTransfer += 1 } else { running.send(SIGKILL) }
            }
            let killed = await running.finish(timeout: 10)
            #expect(killed.signalled || killed.status == 0, "round \(round): \(killed.status)")
            f.registry.clearFaults()
            let rerun = try await f.run(timeout: 30)
            #expect(rerun.status == 0, "round \(round) rerun: \(rerun.all)")
            for id in ["alpha", "beta", "gamma"] {
                #expect(f.isInstalledIntact(id), "round \(round): \(id) does not verify")
            }
            #expect(Invariants.partials(f.store).isEmpty, "round \(round): \(Invariants.partials(f.store))")
            #expect(Invariants.strays(f.store, allowed: ["alpha.bin", "beta.bin", "gamma.bin"]).isEmpty)
        }
        // The random kills must have landed mid-transfer often enough to mean something.
        #expect(killedMidTransfer >= 5, "only \(killedMidTransfer) kills landed during a transfer")
        let verify = try await f.run(["verify"])
        #expect(verify.status == 0, "\(verify.all)")
    }

    @Test("SIGTERM mid-download exits 143, removes its temporary file and keeps the previous file")
    func sigterm() async throws {
        let f = try SyncFixture()
        let before = try await f.syncOnce()
        try f.publishNewVersion("beta", version: "1.1.0", seed: 1200)
        // 128 KiB at 20 KiB/s (6.4 s, ended by the signal): long enough that the signal, sent
        // from a thread of its own 200 ms into the transfer, cannot miss it on a loaded machine.
        f.registry.setFault(.slowDrip(chunkBytes: 1 << 10, intervalMilliseconds: 50), modelId: "beta", endpoint: .storage)
        let running = try f.start(["sync", "--json"])
        let registry = f.registry
        let sent = await running.send(SIGTERM, when: { registry.openDownloads > 0 }, delay: 0.2, timeout: 30)
        #expect(sent)
        let result = await running.finish(timeout: 20)
        #expect(result.status == 143 && !result.signalled, "\(result.status) \(result.all)")
        #expect(result.summary?["exitCode"] as? Int == 143, "\(result.stdout.suffix(400))")
        Invariants.expectStandardOutcome(store: f.store, before: before, failed: ["beta"])
    }

    @Test("two runs at once on one store: one waits for the other, both succeed, each model downloaded once")
    func twoRunsAtOnce() async throws {
        let f = try SyncFixture()
        // The store exists (an earlier run created it); the fresh-store race is the known issue below.
        try FileManager.default.createDirectory(at: f.store, withIntermediateDirectories: true)
        f.registry.setFault(.slowDrip(chunkBytes: 16 << 10, intervalMilliseconds: 20), modelId: nil, endpoint: .storage)
        let a = try f.start()
        let b = try f.start()
        let ra = await a.finish(timeout: 40)
        let rb = await b.finish(timeout: 40)
        #expect(ra.status == 0 && rb.status == 0, "\(ra.all)\n---\n\(rb.all)")
        for id in ["alpha", "beta", "gamma"] {
            #expect(f.isInstalledIntact(id))
            #expect(f.registry.requestLog().filter { $0.origin == .storage && $0.path.contains(id) }.count == 1)
        }
        #expect(Invariants.partials(f.store).isEmpty)
    }

    @Test("two first runs at once on a store that does not exist yet: both succeed")
    func twoFirstRunsOnFreshStore() async throws {
        let f = try SyncFixture()
        f.registry.setFault(.slowDrip(chunkBytes: 16 << 10, intervalMilliseconds: 20), modelId: nil, endpoint: .storage)
        let a = try f.start()
        let b = try f.start()
        let ra = await a.finish(timeout: 40)
        let rb = await b.finish(timeout: 40)
        // Both succeed: the loser of the lock race waits, then finds everything installed. (The
        // store check once compared URLs, which a trailing slash defeated on a fresh store.)
        #expect(ra.status == 0 && rb.status == 0, "\(ra.stderr)\n---\n\(rb.stderr)")
        for id in ["alpha", "beta", "gamma"] { #expect(f.isInstalledIntact(id)) }
        #expect(Invariants.partials(f.store).isEmpty)
    }

    @Test("a lock held by another process (flock): exit 75 after --lock-timeout, nothing touched")
    func lockHeldElsewhere() async throws {
        let f = try SyncFixture()
        let before = try await f.syncOnce()
        try f.publishNewVersion("beta", version: "1.1.0", seed: 1300)
        let lockFile = f.store.appendingPathComponent(".manashiki/lock")
        f.registry.clearRequestLog()
        let holder = try LockHolder(lockFile, in: f.directory)
        defer { holder.kill() }
        #expect(holder.holds)
        let result = try await f.run(["sync", "--lock-timeout", "1s", "--json"])
        #expect(result.status == 75, "\(result.all)")
        #expect(result.summary?["exitName"] as? String == "locked")
        #expect(!f.registry.requestLog().contains { $0.path.hasPrefix("/api/download") })
        Invariants.expectStandardOutcome(store: f.store, before: before, failed: ["alpha", "beta", "gamma"])
    }

    @Test("a stale lock from a dead process (holder killed with -9) does not block the next run")
    func staleLock() async throws {
        let f = try SyncFixture()
        try await f.syncOnce()
        try f.publishNewVersion("beta", version: "1.1.0", seed: 1400)
        let lockFile = f.store.appendingPathComponent(".manashiki/lock")
        let holder = try LockHolder(lockFile, in: f.directory)
        #expect(holder.holds)
        await holder.killAndWait()
        #expect(FileManager.default.fileExists(atPath: lockFile.path))  // the file stays; the lock died with its holder
        let result = try await f.run(["sync", "--lock-timeout", "2s"])
        #expect(result.status == 0, "\(result.all)")
        #expect(f.isInstalledIntact("beta"))
    }

    // Skipped with the reason when strace is missing (a failure under CI) or ptrace is denied (some containers).
    @Test("syscall order: fsync(file) → rename → fsync(directory), shown with strace", .requires(.strace),
          .enabled(if: HostCapabilities.canStrace, Comment(rawValue: HostCapabilities.straceSkipReason)))
    func durabilityOrder() async throws {
        let f = try SyncFixture(models: ["alpha"])
        let trace = f.scratch.file("trace.txt")
        // -y prints each descriptor's path inline, so a call split by another thread's
        // (`<unfinished ...>` / `<... resumed>`) still names its file on its first line.
        let result = try await CLIProcess.run(["-f", "-y", "-e", "trace=fsync,fdatasync,rename,renameat,renameat2,close", "-o", trace.path,
                                               CLIProcess.binary.path, "sync"],
                                              executable: URL(fileURLWithPath: HostCapabilities.strace!), environment: f.environment, in: f.directory)
        #expect(result.status == 0, "\(result.all)")
        let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").map(String.init)
        var events: [(String, String)] = []   // (syscall, path)
        let fdCall = try Regex(#"\b(fsync|fdatasync|close)\(\d+<([^>]*)>"#)
        let renameRegex = try Regex(#"rename(?:at2?)?\(.*"([^"]*alpha\.bin)""#)
        for line in lines {
            if let m = try fdCall.firstMatch(in: line), let call = m.output[1].substring, let path = m.output[2].substring {
                events.append((call == "close" ? "close" : "fsync", String(path)))
            } else if (try renameRegex.firstMatch(in: line)) != nil {
                events.append(("rename", "alpha.bin"))
            }
        }
        let renameIndex = try #require(events.firstIndex { $0.0 == "rename" }, "no rename onto alpha.bin in the trace")
        let fileSync = events[..<renameIndex].lastIndex { $0.0 == "fsync" && $0.1.hasSuffix(".partial") }
        #expect(fileSync != nil, "no fsync of the partial file before the rename: \(events)")
        let dirSync = events[(renameIndex + 1)...].firstIndex { $0.0 == "fsync" && ($0.1 == f.store.path || $0.1 == f.store.path + "/") }
        #expect(dirSync != nil, "no fsync of the store directory after the rename: \(events)")
        // The partial file stays open (holding its flock) until after the rename: a concurrent
        // download's cleaner removes partial files whose lock it can take.
        // (-y names a descriptor by its path at the time of the call: after the rename, the
        // partial file's descriptor is alpha.bin.)
        let closedEarly = events[..<renameIndex].contains { $0.0 == "close" && $0.1.contains("/alpha.") && $0.1.hasSuffix(".partial") }
        #expect(!closedEarly, "the partial file was closed before the rename: \(events)")
        let closedAfter = events[(renameIndex + 1)...].contains { $0.0 == "close" && $0.1.hasSuffix("/alpha.bin") }
        #expect(closedAfter, "the installed file's descriptor was not closed after the rename: \(events)")
    }
}
#endif

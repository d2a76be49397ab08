#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Testing
import Manashiki
import ManashikiRegistry
#if canImport(Glibc)
import Glibc
#endif

/// Hazards in the store itself. Covered elsewhere: a symlinked storage directory refused by the
/// SDK (ManashikiTests DownloadModelTests).
@Suite("Reliability: file system")
struct FileSystemTests {
    @Test("<id>.bin is a symlink to a file outside the store: the outside file is untouched, the link replaced by the real file")
    func symlinkAtTarget() async throws {
        let f = try SyncFixture()
        try await f.syncOnce()
        let outside = f.scratch.file("precious.txt")
        try Data("do not touch".utf8).write(to: outside)
        try FileManager.default.removeItem(at: f.modelFile("beta"))
        try FileManager.default.createSymbolicLink(at: f.modelFile("beta"), withDestinationURL: outside)
        try f.publishNewVersion("beta", version: "1.1.0", seed: 61)
        let result = try await f.run()
        #expect(result.status == 0, "\(result.all)")
        #expect(FileManager.default.contents(atPath: outside.path) == Data("do not touch".utf8))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: f.modelFile("beta").path)) == nil)
        #expect(f.isInstalledIntact("beta"))
        #expect(Invariants.partials(f.store).isEmpty)
    }

    @Test("a symlink planted at a temporary name, and a symlinked partial directory: nothing is written through them")
    func symlinkAtTemporaryName() async throws {
        let f = try SyncFixture()
        try await f.syncOnce()
        let outside = f.scratch.file("precious.txt")
        try Data("do not touch".utf8).write(to: outside)
        let partial = f.store.appendingPathComponent(".manashiki/partial")
        for name in ["beta.0000000000000000.partial", "beta.partial", "beta.AAAAAAAA.partial"] {
            try FileManager.default.createSymbolicLink(at: partial.appendingPathComponent(name), withDestinationURL: outside)
        }
        try f.publishNewVersion("beta", version: "1.1.0", seed: 62)
        let result = try await f.run()
        #expect(result.status == 0, "\(result.all)")
        #expect(FileManager.default.contents(atPath: outside.path) == Data("do not touch".utf8))
        #expect(f.isInstalledIntact("beta"))
        // The planted links are not followed, and not ours: only they remain (no temporary file of the run).
        #expect(Set(Invariants.partials(f.store)) == ["beta.0000000000000000.partial", "beta.partial", "beta.AAAAAAAA.partial"])
        for name in Invariants.partials(f.store) {
            #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: partial.appendingPathComponent(name).path)) == outside.path)
        }
    }

    @Test("a symlinked partial directory: nothing outside the store is written or deleted")
    func symlinkedPartialDirectory() async throws {
        let f = try SyncFixture()
        try await f.syncOnce()
        let partial = f.store.appendingPathComponent(".manashiki/partial")
        let elsewhere = f.scratch.file("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: elsewhere.appendingPathComponent("keep.partial"))
        try FileManager.default.removeItem(at: partial)
        try FileManager.default.createSymbolicLink(at: partial, withDestinationURL: elsewhere)
        let before = StoreSnapshot.capture(f.store)
        try f.publishNewVersion("gamma", version: "1.1.0", seed: 63)
        let second = try await f.run()
        // Nothing is written into or deleted from the directory the link points to. (Before main's
        // facc5ba, LeftoverCleaner deleted keep.partial through the link; this case caught it.)
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path) == ["keep.partial"])
        #expect(FileManager.default.contents(atPath: elsewhere.appendingPathComponent("keep.partial").path) == Data("keep".utf8))
        let after = StoreSnapshot.capture(f.store)
        if second.status != 0 {
            #expect(second.stderrLines.contains { $0.hasPrefix("manashiki-sync: error:") }, "\(second.stderr)")
            #expect(after.files["gamma.bin"] == before.files["gamma.bin"], "gamma.bin changed although the run failed")
        } else {
            #expect(f.isInstalledIntact("gamma"))
        }
        #expect(after.files["alpha.bin"] == before.files["alpha.bin"] && after.files["beta.bin"] == before.files["beta.bin"])
    }

    @Test("the target is a directory: that model fails clearly, the directory and the other models are fine")
    func targetIsDirectory() async throws {
        let f = try SyncFixture()
        try await f.syncOnce()
        try FileManager.default.removeItem(at: f.modelFile("beta"))
        try FileManager.default.createDirectory(at: f.modelFile("beta"), withIntermediateDirectories: true)
        try Data("inside".utf8).write(to: f.modelFile("beta").appendingPathComponent("file"))
        let before = StoreSnapshot.capture(f.store)
        for id in ["alpha", "gamma"] { try f.publishNewVersion(id, version: "1.1.0", seed: 64) }
        let result = try await f.run(timeout: 30)
        #expect(result.status == 3, "\(result.all)")
        #expect(result.stderrLines.contains { $0.hasPrefix("manashiki-sync: error: beta: ") }, "\(result.stderr)")
        #expect(FileManager.default.contents(atPath: f.modelFile("beta").appendingPathComponent("file").path) == Data("inside".utf8))
        Invariants.expectStandardOutcome(store: f.store, before: before, failed: [], synced: ["alpha": f.expected("alpha"), "gamma": f.expected("gamma")])
    }

    @Test("the target is a FIFO: the run does not hang on it, and ends with a clear result")
    func targetIsFIFO() async throws {
        let f = try SyncFixture()
        try await f.syncOnce()
        try FileManager.default.removeItem(at: f.modelFile("beta"))
        #expect(mkfifo(f.modelFile("beta").path, 0o644) == 0)
        let result = try await f.run(timeout: 30)
        #expect(result.status == 0 || result.status == 3, "\(result.all)")
        if result.status == 0 { #expect(f.isInstalledIntact("beta")) } else {
            #expect(result.stderrLines.contains { $0.hasPrefix("manashiki-sync: error: beta: ") })
        }
        #expect(f.isInstalledIntact("alpha") && f.isInstalledIntact("gamma"))
        #expect(Invariants.partials(f.store).isEmpty)
        // verify also terminates
        let verify = try await f.run(["verify"], timeout: 30)
        #expect([0, 4].contains(verify.status), "\(verify.all)")
    }
}

/// Cases that mount file systems or switch users: serialized, each cleaning up after itself.
@Suite("Reliability: file system (privileged)", .serialized)
struct PrivilegedFileSystemTests {
    // Skipped with the reason when this machine does not let root mount a tmpfs.
    @Test("a read-only store: a clear error, every file intact", .enabled(if: HostCapabilities.canMountTmpfs, Comment(rawValue: HostCapabilities.mountSkipReason)))
    func readOnlyStore() async throws {
        let mount = try TmpfsMount(size: "4m")
        defer { mount.unmount() }
        let f = try SyncFixture(store: mount.url.appendingPathComponent("models"))
        let before = try await f.syncOnce()
        #expect(mount.remount(readOnly: true))
        for (i, id) in ["alpha", "beta", "gamma"].enumerated() { try f.publishNewVersion(id, version: "1.1.0", seed: UInt64(70 + i)) }
        let result = try await f.run()
        #expect(result.status == 1 || result.status == 3, "\(result.all)")
        #expect(result.stderr.lowercased().contains("read-only"), "\(result.stderr)")
        Invariants.expectStandardOutcome(store: f.store, before: before, failed: ["alpha", "beta", "gamma"])
        #expect(mount.remount(readOnly: false))
    }

    @Test("a full disk mid-download (SDK): fileSystem ENOSPC, the previous file intact, no partial left",
          .enabled(if: HostCapabilities.canMountTmpfs, Comment(rawValue: HostCapabilities.mountSkipReason)))
    func fullDiskSDK() async throws {
        let mount = try TmpfsMount(size: "1m")
        defer { mount.unmount() }
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: Keys.publishable, organization: "demo")]
        catalog.add(model: RegistryModel(modelId: "tiny", version: "1.0.0", artifact: .generated(size: 300 << 10, seed: 1), platforms: ["linux"]))
        let registry = try DevelopmentRegistry.start(catalog: catalog)
        defer { registry.stop() }
        let client = try ManashikiClient(apiKey: Keys.publishable, baseURL: registry.apiBaseURL, storageDirectory: mount.url)
        _ = try await client.downloadModel("tiny")
        let before = StoreSnapshot.capture(mount.url)
        try registry.publish(modelId: "tiny", version: "2.0.0", artifact: .generated(size: 900 << 10, seed: 2))
        do {
            _ = try await client.downloadModel("tiny")
            Issue.record("a 900 KiB download fitted next to a 300 KiB file on a 1 MiB tmpfs")
        } catch APIError.fileSystem(_, _, let code) {
            #expect(code == ENOSPC)
            let message = APIError.fileSystem(operation: "write", path: "x", code: code).localizedDescription
            #expect(message.lowercased().contains("space") || message.lowercased().contains("full"), "\(message)")
        }
        Invariants.expectStandardOutcome(store: mount.url, before: before, failed: ["tiny"])
    }

    @Test("a full disk mid-download (binary): beta fails with disk full, nothing lost, the next run completes",
          .enabled(if: HostCapabilities.canMountTmpfs, Comment(rawValue: HostCapabilities.mountSkipReason)))
    func fullDiskCLI() async throws {
        let mount = try TmpfsMount(size: "2m")
        defer { mount.unmount() }
        let f = try SyncFixture(store: mount.url.appendingPathComponent("models"))
        let before = try await f.syncOnce()
        try f.publishNewVersion("beta", version: "1.1.0", seed: 80)
        // 128 KiB at 20 KiB/s: a transfer long enough (6.4 s) that a starved poll cannot miss
        // it on a loaded machine; the run ends at the first write after the disk is full.
        f.registry.setFault(.slowDrip(chunkBytes: 2 << 10, intervalMilliseconds: 100), modelId: "beta", endpoint: .storage)
        let running = try f.start()
        #expect(await running.wait(timeout: 20) { f.registry.openDownloads > 0 })
        // Fill the volume while beta is being written.
        let filler = mount.url.appendingPathComponent("filler")
        #expect(FileManager.default.createFile(atPath: filler.path, contents: nil))
        let handle = try FileHandle(forWritingTo: filler)
        let block = Data(count: 64 << 10)
        for _ in 0..<64 { do { try handle.write(contentsOf: block) } catch { break } }
        try? handle.close()
        let result = await running.finish(timeout: 30)
        #expect(result.status == 3 || result.status == 1, "\(result.all)")
        #expect(result.stderr.contains("beta") && (result.stderr.lowercased().contains("space") || result.stderr.lowercased().contains("full")), "\(result.stderr)")
        Invariants.expectStandardOutcome(store: f.store, before: before, failed: ["beta"])
        try FileManager.default.removeItem(at: filler)
        f.registry.clearFaults()
        let rerun = try await f.run()
        #expect(rerun.status == 0, "\(rerun.all)")
        #expect(f.isInstalledIntact("beta"))
    }

    @Test("the plan is refused before any byte moves when the volume is too small",
          .enabled(if: HostCapabilities.canMountTmpfs, Comment(rawValue: HostCapabilities.mountSkipReason)))
    func tooSmallRefusedUpFront() async throws {
        let mount = try TmpfsMount(size: "256k")
        defer { mount.unmount() }
        let f = try SyncFixture(store: mount.url.appendingPathComponent("models"))
        let result = try await f.run()
        #expect(result.status == 1, "\(result.all)")
        #expect(!f.registry.requestLog().contains { $0.origin == .storage })
        #expect(Invariants.partials(f.store).isEmpty)
    }

    // root bypasses file permissions, so the binary runs as nobody (uid 65534) via setpriv.
    @Test("permission denied (the binary as nobody on a root-owned store): a clear error, every file intact",
          .enabled(if: HostCapabilities.setpriv != nil, Comment(rawValue: HostCapabilities.nobodySkipReason)))
    func permissionDenied() async throws {
        let f = try SyncFixture()
        let before = try await f.syncOnce()
        chmod(f.scratch.url.path, 0o755)
        for (i, id) in ["alpha", "beta", "gamma"].enumerated() { try f.publishNewVersion(id, version: "1.1.0", seed: UInt64(90 + i)) }
        // The binary and the toolchain libraries must be reachable by nobody; copy the binary out.
        let bin = ScratchDirectory("manashiki-rel-bin")
        chmod(bin.url.path, 0o755)
        let copy = bin.file("manashiki-sync")
        try FileManager.default.copyItem(at: CLIProcess.binary, to: copy)
        chmod(copy.path, 0o755)
        let result = try await CLIProcess.run(["--reuid=65534", "--regid=65534", "--clear-groups", copy.path, "sync", "--manifest", f.manifestURL.path],
                                              executable: URL(fileURLWithPath: HostCapabilities.setpriv!), environment: f.environment, in: f.directory)
        #expect(result.status == 1 || result.status == 3, "\(result.all)")
        #expect(result.stderr.lowercased().contains("permission"), "\(result.stderr)")
        Invariants.expectStandardOutcome(store: f.store, before: before, failed: ["alpha", "beta", "gamma"])
    }

    /// Runs the built binary as nobody (a copy it can reach) with `arguments`.
    static func runAsNobody(_ arguments: [String], _ f: SyncFixture) async throws -> ChildResult {
        let bin = ScratchDirectory("manashiki-rel-bin")
        defer { bin.remove() }
        chmod(bin.url.path, 0o755)
        let copy = bin.file("manashiki-sync")
        try FileManager.default.copyItem(at: CLIProcess.binary, to: copy)
        chmod(copy.path, 0o755)
        return try await CLIProcess.run(["--reuid=65534", "--regid=65534", "--clear-groups", copy.path] + arguments + ["--manifest", f.manifestURL.path],
                                        executable: URL(fileURLWithPath: HostCapabilities.setpriv!), environment: f.environment, in: f.directory)
    }

    @Test("a store nobody may write, existing or to be created: sync and plan exit 1 naming the store, the user and store.directory, once (issue 38, 5)",
          .enabled(if: HostCapabilities.setpriv != nil, Comment(rawValue: HostCapabilities.nobodySkipReason)))
    func storeNotWritable() async throws {
        let f = try SyncFixture()
        chmod(f.scratch.url.path, 0o755)
        chmod(f.directory.path, 0o755)
        chmod(f.manifestURL.path, 0o644)
        // Never synced: the store cannot be created in root's directory.
        for command in ["sync", "plan"] {
            let r = try await Self.runAsNobody([command], f)
            #expect(r.status == 1, "\(command): \(r.all)")
            #expect(r.stderr.contains("the store \(f.store.path) cannot be created: this user (nobody) cannot write \(f.directory.path): Permission denied"),
                    "\(command): \(r.stderr)")
            #expect(r.stderr.contains("or point store.directory (or --store) at a directory nobody can write"), "\(r.stderr)")
            #expect(!r.stderr.contains("storageDirectory") && !r.stderr.contains("warning"), "\(command): \(r.stderr)")
        }
        // Created by root: it exists, and nobody cannot write it.
        try FileManager.default.createDirectory(at: f.store, withIntermediateDirectories: true)
        chmod(f.store.path, 0o755)
        for command in ["sync", "plan"] {
            let r = try await Self.runAsNobody([command], f)
            #expect(r.status == 1, "\(command): \(r.all)")
            let message = "the store \(f.store.path) exists but this user (nobody) cannot write \(f.store.path): Permission denied — give nobody write permission"
            #expect(r.stderr.components(separatedBy: message).count == 2, "said once: \(command): \(r.stderr)")
            #expect(!r.stderr.contains("storageDirectory") && !r.stderr.contains("Could not create"), "\(command): \(r.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.store.path).isEmpty)
    }
}
#endif

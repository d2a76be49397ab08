import Foundation
import Manashiki
import ManashikiCore
import ManashikiTestSupport
import Testing
import ManashikiRegistry
import ManashikiSync
@testable import ManashikiSyncCLI
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("export (built binary)")
struct ExportCommandTests {
    @Test("export DIR writes a content-addressed bundle of the synced store; re-running copies nothing; no network")
    func exportStore() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync", "--quiet"]).status == 0)
        let requests = fixture.registry.requestLog().count

        let first = try await fixture.run(["export", "bundle", "--json"], environment: [:])
        #expect(first.status == 0, "\(first.all)")
        let summary = first.summary()
        #expect(summary["outcome"] as? String == "exported")
        #expect((summary["copied"] as? [[String: Any]])?.count == 2)
        #expect(summary["bytesCopied"] as? Int == (64 + 128) << 10)
        let bundle = BundleLayout(directory: fixture.directory.appendingPathComponent("bundle"))
        let index = try BundleIndex.read(bundle)
        #expect(index.models.map(\.modelId) == ["alpha", "beta"])
        for id in ["alpha", "beta"] {
            let entry = try #require(index.models.first { $0.modelId == id })
            #expect(entry.sha256 == fixture.registry.sha256(modelId: id))
            #expect(try Data(contentsOf: bundle.blob(entry.sha256)) == fixture.registry.artifactBytes(modelId: id))
            // The record facts an offline plan needs came along from the sync.
            #expect(entry.record?.compatibility.platforms == [.linux])
            #expect(entry.record?.lifecycle.status == .production)
        }

        let second = try await fixture.run(["export", "bundle"], environment: [:])
        #expect(second.status == 0)
        #expect(second.stdout.contains("0 copied"))
        #expect(second.stdout.contains("2 already there"))
        #expect(fixture.registry.requestLog().count == requests) // export made no request
    }

    @Test("export --select manifest reports a model that is not installed (exit 3) and exports the rest")
    func manifestSelection() async throws {
        let fixture = try Fixture(models: ["alpha"])
        #expect(try await fixture.run(["sync", "--quiet"]).status == 0)
        try fixture.writeManifest(models: ["alpha", "beta"])
        let result = try await fixture.run(["export", "out", "--select", "manifest"], environment: [:])
        #expect(result.status == 3)
        #expect(result.stderr.contains("beta: is not installed in the store"))
        let index = try BundleIndex.read(BundleLayout(directory: fixture.directory.appendingPathComponent("out")))
        #expect(index.models.map(\.modelId) == ["alpha"])
    }

    @Test("export without a directory, with two, or with a bad --select is a usage error (exit 2)", arguments: [
        ["export"], ["export", "a", "b"], ["export", "a", "--select", "everything"], ["sync", "--select", "store"],
    ])
    func usage(arguments: [String]) async throws {
        let fixture = try Fixture()
        let result = try await fixture.run(arguments, environment: [:])
        #expect(result.status == 2)
        #expect(result.stderr.contains("manashiki-sync: error:"))
    }

    /// Writes `<store>/<id>.bin` of `size` bytes (a repeating pattern, written in pieces) and
    /// records it in the store's state, as a sync would have.
    static func storeLarge(_ fixture: Fixture, id: String, size: Int) throws -> (sha256: String, size: Int64) {
        try StoreLayout(directory: fixture.store).prepare()
        let url = fixture.store.appendingPathComponent("\(id).bin")
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        let hasher = SHA256Hasher()
        var piece = Data(count: 4 << 20)
        for i in 0..<(size / piece.count) {
            piece.withUnsafeMutableBytes { p in for j in stride(from: 0, to: p.count, by: 4096) { p[j] = UInt8(truncatingIfNeeded: i &+ j) } }
            try handle.write(contentsOf: piece)
            hasher.update(piece)
        }
        try handle.close()
        let sha = hasher.finalize().hex
        let identity = try #require(FileIdentity.of(url))
        let facts = ArtifactFacts(visibility: .public, lifecycle: ModelLifecycle(status: .production), compatibility: ModelCompatibility(platforms: [.linux]))
        let state = StoreState(models: [id: StoreState.Installed(version: "1.0.0", sha256: sha, size: Int64(size), identity: identity, record: facts)])
        try StateFile.write(state, to: StoreLayout(directory: fixture.store))
        return (sha, Int64(size))
    }

    @Test("kill -9 of the built binary mid-copy leaves no file under a final name; the next export removes the temporary file and completes")
    func killedMidExport() async throws {
        let fixture = try Fixture(models: ["big"])
        let big = try Self.storeLarge(fixture, id: "big", size: 512 << 20)
        let bundle = BundleLayout(directory: fixture.directory.appendingPathComponent("bundle"))
        let blobs = bundle.blobDirectory.path
        let child = try fixture.start(["export", "bundle"], environment: [:])
        // Killed once its temporary copy holds some bytes but not all (a real crash mid-copy).
        let midCopy = await child.send(SIGKILL, when: {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: blobs)) ?? []
            return names.contains { name in
                name.hasSuffix(".tmp") && (POSIX.lstatInfo(blobs + "/" + name).map { $0.st_size > 0 && Int64($0.st_size) < big.size } ?? false)
            }
        })
        let killed = await child.finish()
        try #require(midCopy && killed.signalled, "the export was not caught mid-copy: \(killed.all)")
        let left = try FileManager.default.contentsOfDirectory(atPath: blobs)
        #expect(!left.contains(big.sha256))                            // nothing partial under the final name
        #expect(left.count == 1 && left[0].hasSuffix(".tmp"), "\(left)")
        #expect(!FileManager.default.fileExists(atPath: bundle.indexFile.path))

        let rerun = try await fixture.run(["export", "bundle", "--json"], environment: [:])
        #expect(rerun.status == 0, "\(rerun.all)")
        let summary = rerun.summary()
        #expect(summary["removedTemporaries"] as? [String] == ["blobs/sha256/\(left[0])"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: blobs) == [big.sha256])
        let blob = try #require(POSIX.lstatInfo(bundle.blob(big.sha256).path))
        #expect(Int64(blob.st_size) == big.size)
        #expect(try BundleIndex.read(bundle).models.map(\.sha256) == [big.sha256])
    }

    @Test("re-running export over a blob with the right size and wrong bytes replaces it, warns naming it, and says so in --json")
    func reExportReplacesCorruptBlob() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync", "--quiet"]).status == 0)
        #expect(try await fixture.run(["export", "bundle", "--quiet"], environment: [:]).status == 0)
        let bundle = BundleLayout(directory: fixture.directory.appendingPathComponent("bundle"))
        let beta = bundle.blob(fixture.registry.sha256(modelId: "beta"))
        var bytes = try Data(contentsOf: beta)
        bytes[5000] ^= 0x01
        try bytes.write(to: beta)

        let text = try await fixture.run(["export", "bundle"], environment: [:])
        #expect(text.status == 0, "\(text.all)")
        #expect(text.stderr.contains("warning: \(bundle.directory.path): blobs/sha256/\(fixture.registry.sha256(modelId: "beta")) (beta 2.1.0) has sha256"), "\(text.stderr)")
        #expect(text.stdout.contains("1 copied (128.0 KiB, 1 replacing a damaged blob), 1 already there (verified)"), "\(text.stdout)")
        #expect(try Data(contentsOf: beta) == fixture.registry.artifactBytes(modelId: "beta"))

        bytes = try Data(contentsOf: beta)
        bytes[0] ^= 0x01
        try bytes.write(to: beta)
        let json = try await fixture.run(["export", "bundle", "--json"], environment: [:])
        #expect(json.status == 0)
        let repaired = try #require(json.summary()["repaired"] as? [[String: Any]])
        #expect(repaired.count == 1 && repaired.first?["modelId"] as? String == "beta" && repaired.first?["replaced"] as? Bool == true)
        #expect(json.summary()["bytesVerified"] as? Int == (64 + 128) << 10)
    }

    @Test("export --json ends with a summary on every path: a missing lock file, a bundle another export holds (exit 75)")
    func jsonOnEveryPath() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync", "--quiet"]).status == 0)
        let noLock = try await fixture.run(["export", "bundle", "--select", "lock", "--json"], environment: [:])
        #expect(noLock.status == 2)
        #expect(noLock.summary()["outcome"] as? String == "lock-error", "\(noLock.all)")

        let bundle = fixture.directory.appendingPathComponent("busy")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        let holder = open(bundle.path, O_RDONLY | O_DIRECTORY)
        #expect(flock(holder, LOCK_EX) == 0)
        defer { close(holder) }
        let busy = try await fixture.run(["export", "busy", "--json", "--lock-timeout", "0"], environment: [:])
        #expect(busy.status == 75, "\(busy.all)")
        #expect(busy.summary()["outcome"] as? String == "locked")
        #expect(busy.stderr.contains("another export is writing this bundle"))
    }
}

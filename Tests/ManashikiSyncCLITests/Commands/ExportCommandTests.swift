import Foundation
import Manashiki
import Testing
import ManashikiRegistry
import ManashikiSync
@testable import ManashikiSyncCLI

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
}

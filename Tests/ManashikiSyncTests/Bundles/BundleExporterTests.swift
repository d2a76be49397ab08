import Foundation
import ManashikiTestSupport
import ManashikiCore
import Manashiki
import Testing
@testable import ManashikiSync
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Bundle export")
struct BundleExporterTests {
    /// A store with two recorded models, written by hand.
    static func store(_ contents: [String: String]) throws -> TestStore {
        let store = TestStore()
        try store.layout.prepare()
        var state = StoreState()
        for (id, text) in contents {
            store.write(id, text)
            let identity = try #require(FileIdentity.of(store.file(id)))
            let facts = ArtifactFacts(visibility: .public, lifecycle: ModelLifecycle(status: .production),
                                      compatibility: ModelCompatibility(platforms: [.linux]))
            state.models[id] = StoreState.Installed(version: "1.0.0", sha256: SHA256Hasher.hash(Data(text.utf8)).hex,
                                                    size: Int64(text.utf8.count), identity: identity, record: facts)
        }
        try StateFile.write(state, to: store.layout)
        return store
    }

    @Test("exports every recorded model as blobs/sha256/<hex> with an index; a second run copies nothing")
    func exportAndRerun() throws {
        let store = try Self.store(["alpha": "alpha bytes", "beta": "beta bytes, longer"])
        let scratch = ScratchDirectory("bundle")
        let bundle = BundleLayout(directory: scratch.file("bundle")) // not created yet

        let first = try BundleExporter.export(store: store.layout, to: bundle, selection: .store)
        #expect(first.copied.map(\.modelId) == ["alpha", "beta"])
        #expect(first.failures.isEmpty)
        for artifact in first.copied {
            let blob = try Data(contentsOf: bundle.blob(artifact.sha256))
            #expect(SHA256Hasher.hash(blob).hex == artifact.sha256)
            #expect(artifact.record?.compatibility.platforms == [.linux])
        }
        let index = try BundleIndex.read(bundle)
        #expect(index.models.map(\.modelId) == ["alpha", "beta"])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: bundle.blobDirectory.path).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty)

        let second = try BundleExporter.export(store: store.layout, to: bundle, selection: .store)
        #expect(second.copied.isEmpty)
        #expect(second.present.count == 2)
        #expect(second.bytesCopied == 0)
        #expect(try BundleIndex.read(bundle) == index)
    }

    @Test("a recorded publisher signature travels as a blob read through the store's descriptors (bundle and S3 companions); a symbolic link in its place is refused, never followed: the model exported without it, saying so")
    func signatureThroughTheStoresHandle() throws {
        let store = try Self.store(["alpha": "alpha bytes"])
        let signature = Data(#"{"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json"}"#.utf8)
        let reference = SignatureReference(sha256: SHA256Hasher.hash(signature).hex, size: Int64(signature.count))
        try StoredSignatures.write(signature, for: "alpha", in: store.layout)
        guard case .loaded(var state) = StateFile.read(store.layout) else { Issue.record("no state"); return }
        state.models["alpha"]?.signer = PublisherSigner(mode: .key, name: "sha256:0011", signatureSHA256: reference.sha256)
        try StateFile.write(state, to: store.layout)
        let scratch = ScratchDirectory("bundle")

        let carried = BundleLayout(directory: scratch.file("carried"))
        let report = try BundleExporter.export(store: store.layout, to: carried, selection: .store)
        #expect(report.failures.isEmpty && report.copied.first?.signature == reference)
        #expect(try Data(contentsOf: carried.blob(reference.sha256)) == signature)
        #expect(try BundleIndex.read(carried).models.first?.signature == reference)
        let alpha = try #require(report.copied.first)
        #expect(try S3Exporter.Options().companions(alpha, store.layout).map(\.data) == [signature])

        // The same bytes behind a symbolic link: refused (the store's files are opened with O_NOFOLLOW).
        let elsewhere = scratch.file("elsewhere.sig")
        try signature.write(to: elsewhere)
        try FileManager.default.removeItem(at: store.layout.signatureFile("alpha"))
        try FileManager.default.createSymbolicLink(at: store.layout.signatureFile("alpha"), withDestinationURL: elsewhere)
        let linked = BundleLayout(directory: scratch.file("linked"))
        let refused = try BundleExporter.export(store: store.layout, to: linked, selection: .store)
        #expect(refused.copied.map(\.modelId) == ["alpha"] && refused.copied.first?.signature == nil)
        #expect(refused.failures.map(\.modelId) == ["alpha"] && refused.failures.first?.message.contains("is missing or changed; exported without it") == true,
                "\(refused.failures)")
        #expect(try BundleIndex.read(linked).models.first?.signature == nil)
        #expect(!FileManager.default.fileExists(atPath: linked.blob(reference.sha256).path))
        #expect(throws: SyncFailure.self) { try S3Exporter.Options().companions(alpha, store.layout) }
    }

    @Test("a store file that no longer matches its record is not exported, and no temporary file stays")
    func damagedFileNotExported() throws {
        let store = try Self.store(["alpha": "alpha bytes", "beta": "beta bytes"])
        store.write("beta", "BETA bytes") // same size, other content
        let scratch = ScratchDirectory("bundle")
        let bundle = BundleLayout(directory: scratch.file("bundle")) // not created yet

        let report = try BundleExporter.export(store: store.layout, to: bundle, selection: .store)
        #expect(report.copied.map(\.modelId) == ["alpha"])
        #expect(report.failures.map(\.modelId) == ["beta"])
        #expect(report.failures.first?.message.contains("\(Remedy.verifyRepair)") == true)
        let names = try FileManager.default.contentsOfDirectory(atPath: bundle.blobDirectory.path)
        #expect(names == [report.copied[0].sha256])
        #expect(try BundleIndex.read(bundle).models.map(\.modelId) == ["alpha"])
    }

    @Test("a bundle whose index is of a newer format is refused and left untouched")
    func newerIndexUntouched() throws {
        let store = try Self.store(["alpha": "alpha bytes"])
        let scratch = ScratchDirectory("bundle")
        let bundle = BundleLayout(directory: scratch.file("bundle")) // not created yet
        try FileManager.default.createDirectory(at: bundle.directory, withIntermediateDirectories: true)
        let future = Data(#"{"formatVersion": 9, "models": []}"#.utf8)
        try future.write(to: bundle.indexFile)
        #expect(throws: ArtifactFileError.self) { try BundleExporter.export(store: store.layout, to: bundle, selection: .store) }
        #expect(try Data(contentsOf: bundle.indexFile) == future)
    }

    @Test("a lock's selection exports exactly the locked artifacts and reports what the store lacks")
    func lockSelection() throws {
        let store = try Self.store(["alpha": "alpha bytes", "beta": "beta bytes"])
        let state = try #require(store.readState())
        let scratch = ScratchDirectory("bundle")
        let bundle = BundleLayout(directory: scratch.file("bundle")) // not created yet
        let alpha = try #require(state.models["alpha"])
        let locked = [
            PinnedArtifact(modelId: "alpha", version: "1.0.0", size: alpha.size, sha256: alpha.sha256),
            PinnedArtifact(modelId: "beta", version: "0.9.0", size: 3, sha256: String(repeating: "0", count: 64)),
        ]
        let report = try BundleExporter.export(store: store.layout, to: bundle, selection: .artifacts(locked))
        #expect(report.copied.map(\.modelId) == ["alpha"])
        #expect(report.copied.first?.record != nil) // facts taken from the store when the lock has none
        #expect(report.failures.map(\.modelId) == ["beta"])
        #expect(report.failures.first?.message.contains("\(Remedy.syncLocked)") == true)
    }

    @Test("a blob already in the bundle with the right size but other bytes is found by its SHA-256, replaced by a verified copy and reported")
    func sameSizeCorruptBlobReplaced() throws {
        let store = try Self.store(["alpha": "alpha bytes", "beta": "beta bytes, longer"])
        let scratch = ScratchDirectory("bundle")
        let bundle = BundleLayout(directory: scratch.file("bundle")) // not created yet
        let first = try BundleExporter.export(store: store.layout, to: bundle, selection: .store)
        let beta = try #require(first.copied.first { $0.modelId == "beta" })
        try Data("BETA BYTES, LONGER".utf8).write(to: bundle.blob(beta.sha256)) // same size, other content

        let second = try BundleExporter.export(store: store.layout, to: bundle, selection: .store)
        #expect(second.copied.map(\.modelId) == ["beta"])
        #expect(second.present.map(\.modelId) == ["alpha"])
        #expect(second.repaired.map(\.artifact.modelId) == ["beta"])
        #expect(second.repaired.first?.replaced == true)
        #expect(second.repaired.first?.description.contains("has sha256") == true)
        #expect(second.failures.isEmpty)
        #expect(SHA256Hasher.hash(try Data(contentsOf: bundle.blob(beta.sha256))).hex == beta.sha256)
        #expect(second.bytesVerified == Int64("alpha bytes".utf8.count + "BETA BYTES, LONGER".utf8.count))
    }

    @Test("a damaged blob the store cannot replace (its file is damaged too) is removed and left out of the index")
    func damagedBlobWithoutGoodCopyRemoved() throws {
        let store = try Self.store(["alpha": "alpha bytes", "beta": "beta bytes"])
        let scratch = ScratchDirectory("bundle")
        let bundle = BundleLayout(directory: scratch.file("bundle")) // not created yet
        let first = try BundleExporter.export(store: store.layout, to: bundle, selection: .store)
        let beta = try #require(first.copied.first { $0.modelId == "beta" })
        try Data("beta".utf8).write(to: bundle.blob(beta.sha256)) // truncated
        store.write("beta", "BETA bytes")                          // and the store's copy rotted

        let second = try BundleExporter.export(store: store.layout, to: bundle, selection: .store)
        #expect(second.failures.map(\.modelId) == ["beta"])
        #expect(second.failures.first?.message.contains("has 4 bytes, not 10 and was removed") == true, "\(second.failures)")
        #expect(second.failures.first?.message.contains("\(Remedy.verifyRepair)") == true)
        #expect(second.repaired.first?.replaced == false)
        #expect(!FileManager.default.fileExists(atPath: bundle.blob(beta.sha256).path))
        #expect(try BundleIndex.read(bundle).models.map(\.modelId) == ["alpha"])
    }

    @Test("temporary files an interrupted export left are removed by the next one; one a live process holds is left alone")
    func interruptedExportLeftoversRemoved() throws {
        let store = try Self.store(["alpha": "alpha bytes"])
        let scratch = ScratchDirectory("bundle")
        let bundle = BundleLayout(directory: scratch.file("bundle")) // not created yet
        try FileManager.default.createDirectory(at: bundle.blobDirectory, withIntermediateDirectories: true)
        let sha = SHA256Hasher.hash(Data("alpha bytes".utf8)).hex
        let stale = ".\(sha).0123456789abcdef.tmp", held = ".\(sha).fedcba9876543210.tmp"
        try Data("alpha".utf8).write(to: bundle.blobDirectory.appendingPathComponent(stale))
        try Data("alpha".utf8).write(to: bundle.blobDirectory.appendingPathComponent(held))
        try Data("{}".utf8).write(to: bundle.directory.appendingPathComponent("index.json.tmp.0123456789abcdef"))
        let holder = open(bundle.blobDirectory.appendingPathComponent(held).path, O_RDONLY)
        #expect(flock(holder, LOCK_EX) == 0)
        defer { close(holder) }

        let report = try BundleExporter.export(store: store.layout, to: bundle, selection: .store)
        #expect(report.removedTemporaries == ["blobs/sha256/\(stale)", "index.json.tmp.0123456789abcdef"])
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: bundle.blobDirectory.path))
        #expect(names == [sha, held])
        #expect(!FileManager.default.fileExists(atPath: bundle.directory.appendingPathComponent("index.json.tmp.0123456789abcdef").path))
    }

    @Test("a second export into a bundle another export is writing fails with BundleBusy after its lock timeout, changing nothing")
    func concurrentExportRefused() throws {
        let store = try Self.store(["alpha": "alpha bytes"])
        let scratch = ScratchDirectory("bundle")
        let bundle = BundleLayout(directory: scratch.file("bundle")) // not created yet
        try FileManager.default.createDirectory(at: bundle.directory, withIntermediateDirectories: true)
        let holder = open(bundle.directory.path, O_RDONLY | O_DIRECTORY)
        #expect(flock(holder, LOCK_EX) == 0)
        defer { close(holder) }
        #expect(throws: BundleExporter.BundleBusy.self) {
            try BundleExporter.export(store: store.layout, to: bundle, selection: .store, lockTimeout: .milliseconds(200))
        }
        #expect(!FileManager.default.fileExists(atPath: bundle.indexFile.path))
    }

    @Test("a bundle path that is a regular file is refused as not a directory (it said \"Input/output error\"), the file untouched")
    func bundlePathIsAFile() throws {
        let store = try Self.store(["alpha": "alpha bytes"])
        let scratch = ScratchDirectory("bundle")
        let bundle = BundleLayout(directory: scratch.file("bundle")) // not created yet
        try Data("notes".utf8).write(to: bundle.directory)
        let error = try #require(throws: ArtifactFileError.self) { try BundleExporter.export(store: store.layout, to: bundle, selection: .store) }
        #expect(error.message == "exists and is not a directory", "\(error)")
        #expect(error.hint.contains("choose a directory"))
        #expect(try Data(contentsOf: bundle.directory) == Data("notes".utf8))
    }

    @Test("a directory whose index.json is not a bundle index is refused and left untouched, saying to move it away or choose an empty directory")
    func foreignIndexUntouched() throws {
        let store = try Self.store(["alpha": "alpha bytes"])
        let scratch = ScratchDirectory("bundle")
        let bundle = BundleLayout(directory: scratch.file("bundle")) // not created yet
        try FileManager.default.createDirectory(at: bundle.directory, withIntermediateDirectories: true)
        let foreign = Data(#"{"name": "my-web-app", "files": []}"#.utf8)
        try foreign.write(to: bundle.indexFile)
        let error = try #require(throws: ArtifactFileError.self) { try BundleExporter.export(store: store.layout, to: bundle, selection: .store) }
        #expect(error.hint.contains("move index.json away"), "\(error)")
        #expect(try Data(contentsOf: bundle.indexFile) == foreign)
        #expect(!FileManager.default.fileExists(atPath: bundle.blobDirectory.path))
    }
}

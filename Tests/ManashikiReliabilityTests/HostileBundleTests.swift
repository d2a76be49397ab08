#if os(Linux) // GNU time (MeasuredRun)
import Foundation
import ManashikiTestSupport
import Testing
import Manashiki
import ManashikiCore
#if canImport(Glibc)
import Glibc
#endif

/// A bundle directory (a USB stick, an image layer) and a store crafted by an attacker, against
/// the built `manashiki-sync` under `/usr/bin/time` (docs/reliability.md, "Hostile input"):
/// nothing hangs, memory stays bounded by the documents' limits, a number never crashes, and
/// each run ends by an exit status naming what it refused.
@Suite("Reliability: a hostile bundle or store", .requires(.gnuTime))
struct HostileBundleTests {
    static let policies = #"{"checkCompatibility": false, "retry": {"maxAttempts": 1}}"#

    /// `<scratch>/bundle` with an index listing `models` and the blobs as `blob` makes them.
    static func bundle(_ f: ScriptedSync, _ models: [ScriptedRegistry.Model], index: Data? = nil,
                       blob: (String, ScriptedRegistry.Model) throws -> Void) throws -> URL {
        let dir = f.scratch.file("bundle")
        let blobs = dir.appendingPathComponent("blobs/sha256")
        try FileManager.default.createDirectory(at: blobs, withIntermediateDirectories: true)
        let entries = models.map { #"{"modelId": "\#($0.id)", "version": "\#($0.version)", "size": \#($0.bytes.count), "sha256": "\#($0.sha256)"}"# }
        try (index ?? Data(#"{"formatVersion": 1, "models": [\#(entries.joined(separator: ", "))]}"#.utf8))
            .write(to: dir.appendingPathComponent("index.json"))
        for m in models { try blob(blobs.appendingPathComponent(m.sha256).path, m) }
        return dir
    }

    @Test("a blob that is a FIFO is refused at once (it hung open() for ever, holding the store's lock); the model comes from the registry")
    func fifoBlob() async throws {
        let f = try ScriptedSync()
        let alpha = try #require(f.registry.model("alpha"))
        let dir = try Self.bundle(f, [alpha]) { path, _ in try #require(mkfifo(path, 0o644) == 0) }
        try f.writeManifest(models: ["alpha"], policies: Self.policies, topLevel: #""sources": [{"bundle": "\#(dir.path)"}],"#)
        let run = try await f.measured()
        #expect(run.signal == nil)
        #expect(run.result.status == 0, "\(run.result.all)")
        #expect(run.result.all.contains("a FIFO, not a regular file"), "\(run.result.all)")
        #expect(f.isInstalledIntact("alpha"))
    }

    @Test("an index.json that is a FIFO, or 200 MB (sparse), is refused on sight with a warning: no hang, no memory growth",
          arguments: ["fifo", "huge"])
    func hostileIndex(kind: String) async throws {
        let f = try ScriptedSync()
        let dir = f.scratch.file("bundle")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("blobs/sha256"), withIntermediateDirectories: true)
        let index = dir.appendingPathComponent("index.json")
        if kind == "fifo" {
            try #require(mkfifo(index.path, 0o644) == 0)
        } else {
            try #require(FileManager.default.createFile(atPath: index.path, contents: nil))
            try FileHandle(forWritingTo: index).truncate(atOffset: 200 << 20)
        }
        try f.writeManifest(models: ["alpha"], policies: Self.policies, topLevel: #""sources": [{"bundle": "\#(dir.path)"}],"#)
        let run = try await f.measured()
        #expect(run.signal == nil)
        #expect(run.result.status == 0, "\(run.result.all)")
        #expect(run.result.all.contains(kind == "fifo" ? "a FIFO, not a regular file" : "over the 16.0 MiB an index may be"), "\(run.result.all)")
        #expect(f.isInstalledIntact("alpha"))
        #expect(run.maxRSSMiB < 150, "peak RSS \(run.maxRSSMiB) MiB")
    }

    @Test("an index of 5 million {} (15 MB, under the size limit) is refused by the parser's tree limit; memory stays bounded")
    func emptyEntries() async throws {
        let f = try ScriptedSync()
        var text = Data(#"{"formatVersion": 1, "models": ["#.utf8)
        text.reserveCapacity(15 << 20)
        for i in 0..<5_000_000 { text.append(contentsOf: i == 0 ? Array("{}".utf8) : Array(",{}".utf8)) }
        text.append(contentsOf: Array("]}".utf8))
        let dir = try Self.bundle(f, [], index: text) { _, _ in }
        try f.writeManifest(models: ["alpha"], policies: Self.policies, topLevel: #""sources": [{"bundle": "\#(dir.path)"}],"#)
        let run = try await f.measured()
        #expect(run.signal == nil)
        #expect(run.result.status == 0, "\(run.result.all)")
        #expect(run.result.all.contains("times its size in memory"), "\(run.result.all)")
        #expect(f.isInstalledIntact("alpha"))
        // The promise: at most 8 times the 16 MiB an index may be, plus the run itself.
        #expect(run.maxRSSMiB < 8 * 16 + 100, "peak RSS \(run.maxRSSMiB) MiB")
    }

    @Test("two catalog entries of size 2^63 - 1: each refused naming it (it crashed with SIGILL, exit 132)")
    func absurdCatalogSizes() async throws {
        let f = try ScriptedSync()
        try f.writeManifest(models: ["alpha", "beta", "gamma"], policies: Self.policies)
        f.registry.setOverride { request, registry in
            guard request.path == "/api/models" else { return nil }
            let json = registry.catalogJSON().replacingOccurrences(of: #""size": 20000"#, with: #""size": 9223372036854775807"#)
                .replacingOccurrences(of: #""size": 30000"#, with: #""size": 9223372036854775807"#)
            return ScriptedOrigin.json(json)
        }
        let run = try await f.measured()
        #expect(run.signal == nil && run.result.status != 132)
        #expect(run.result.status != 0, "\(run.result.all)")
        #expect(run.result.all.contains("has a size of 9223372036854775807 bytes, over the 1 PiB"), "\(run.result.all)")
        #expect(f.isInstalledIntact("gamma"))
    }

    @Test("a bundle index with two entries of size 2^63 - 1: an offline sync refuses it naming the field, exit by status")
    func absurdIndexSizes() async throws {
        let f = try ScriptedSync()
        var alpha = try #require(f.registry.model("alpha")), beta = try #require(f.registry.model("beta"))
        alpha.bytes = Data()
        beta.bytes = Data()
        let entries = [alpha, beta].map { #"{"modelId": "\#($0.id)", "version": "1.0.0", "size": 9223372036854775807, "sha256": "\#($0.sha256)"}"# }
        let dir = try Self.bundle(f, [], index: Data(#"{"formatVersion": 1, "models": [\#(entries.joined(separator: ", "))]}"#.utf8)) { _, _ in }
        try f.writeManifest(models: ["alpha", "beta"], policies: Self.policies)
        let run = try await f.measured(["sync", "--offline", "--from", dir.path])
        #expect(run.signal == nil && run.result.status != 132)
        #expect(run.result.status != 0, "\(run.result.all)")
        #expect(run.result.all.contains("models[0].size: is 9223372036854775807 bytes, over the 1 PiB"), "\(run.result.all)")
    }

    @Test("a state.json that is a FIFO, a directory or 300 MB (sparse): refused on sight naming it, never 'the model file'; no hang, bounded memory",
          arguments: ["fifo", "directory", "huge"])
    func hostileState(kind: String) async throws {
        let f = try ScriptedSync()
        try f.writeManifest(models: ["alpha"], policies: Self.policies)
        let state = f.store.appendingPathComponent(".manashiki/state.json")
        try FileManager.default.createDirectory(at: state.deletingLastPathComponent(), withIntermediateDirectories: true)
        switch kind {
        case "fifo": try #require(mkfifo(state.path, 0o644) == 0)
        case "directory": try FileManager.default.createDirectory(at: state, withIntermediateDirectories: false)
        default:
            try #require(FileManager.default.createFile(atPath: state.path, contents: nil))
            try FileHandle(forWritingTo: state).truncate(atOffset: 300 << 20)
        }
        let run = try await f.measured()
        #expect(run.signal == nil)
        #expect(!run.result.all.contains("where the model file should be"), "\(run.result.all)")
        #expect(run.result.all.contains("state.json"), "\(run.result.all)")
        #expect(run.maxRSSMiB < 150, "peak RSS \(run.maxRSSMiB) MiB")
        if kind == "directory" {
            // A rename cannot put the new state over a directory: each run says so, naming it and
            // what to do, and re-hashes (the models themselves are fine: exit 0).
            #expect(run.result.status == 0, "\(run.result.all)")
            #expect(run.result.all.contains("the state file could not be written") && run.result.all.contains("A directory stands where this file should be"),
                    "\(run.result.all)")
            #expect(f.isInstalledIntact("alpha"))
        } else {
            // Unusable: every file is hashed again, and the state written anew (over the FIFO too).
            #expect(run.result.status == 0, "\(run.result.all)")
            #expect(f.isInstalledIntact("alpha"))
            #expect(POSIX.lstatInfo(state.path).map(POSIX.isRegular) == true)
        }
    }
}
#endif

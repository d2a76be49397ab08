#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Testing
import Manashiki
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A crafted store, run against the built `manashiki-sync`: whatever was planted in it, nothing
/// beside the store changes (a snapshot of the scratch directory, the store left out, compared
/// before and after), the run ends by an exit status (never a signal) with an error naming the
/// path and what to do (docs/reliability.md, "Hostile input").
@Suite("Reliability: a hostile store")
struct HostileStoreTests {
    /// Runs `sync` on `f` and checks the invariants; returns the result.
    static func syncBeside(_ f: SyncFixture, sourceLocation: SourceLocation = #_sourceLocation) async throws -> ChildResult {
        let before = TreeSnapshot.capture(f.scratch.url, excluding: ["models"])
        let result = try await f.run(["sync"])
        let after = TreeSnapshot.capture(f.scratch.url, excluding: ["models"])
        #expect(after.difference(from: before).isEmpty, "changed beside the store: \(after.difference(from: before))", sourceLocation: sourceLocation)
        #expect(!result.signalled, "ended by signal \(result.status): \(result.all)", sourceLocation: sourceLocation)
        return result
    }

    @Test("STORE/.manashiki/lock a symbolic link to a path outside: the run refuses it (exit 1, naming the link), and the outside file is never created")
    func lockLink() async throws {
        let f = try SyncFixture()
        try await f.syncOnce()
        let victim = f.scratch.file("outside/created-by-sync")
        try FileManager.default.createDirectory(at: victim.deletingLastPathComponent(), withIntermediateDirectories: true)
        let lock = f.store.appendingPathComponent(".manashiki/lock")
        try FileManager.default.removeItem(at: lock)
        try FileManager.default.createSymbolicLink(atPath: lock.path, withDestinationPath: victim.path)
        let result = try await Self.syncBeside(f)
        #expect(result.status == 1, "\(result.all)")
        #expect(result.stderr.contains(lock.path) && result.stderr.contains("symbolic link"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: victim.path))
    }

    @Test("STORE/.manashiki a symbolic link (to an empty directory outside, or to nothing): refused, nothing created where it points")
    func metadataLink() async throws {
        for dangling in [false, true] {
            let f = try SyncFixture()
            let outside = f.scratch.file("outside")
            try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: f.store, withIntermediateDirectories: true)
            let target = dangling ? outside.appendingPathComponent("missing") : outside
            try FileManager.default.createSymbolicLink(atPath: f.store.appendingPathComponent(".manashiki").path, withDestinationPath: target.path)
            let result = try await Self.syncBeside(f)
            #expect(result.status != 0, "\(result.all)")
            #expect(result.stderr.contains("symbolic link"), "\(result.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path).isEmpty)
        }
    }
}
#endif

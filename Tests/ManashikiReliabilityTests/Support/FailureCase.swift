#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Testing
import ManashikiRegistry

extension SyncFixture {
    /// The standard failure scenario through the built binary: every model is installed and
    /// verified, then the registry publishes a new version of each (so a healthy run replaces all
    /// three), `arm` injects the fault for `failing`, and a sync runs. Expected: exit 3, one
    /// error line naming `failing` with what to do, the previous `<failing>.bin` byte-identical
    /// (same inode), no temporary file, the other models replaced, nothing pruned, and no key
    /// in any output.
    @discardableResult
    func expectIsolatedFailure(of failing: String = "beta", arguments: [String] = ["sync"], messageContains: [String] = [],
                               sourceLocation: SourceLocation = #_sourceLocation,
                               arm: (SyncFixture) throws -> Void) async throws -> ChildResult {
        let before = try await syncOnce(sourceLocation: sourceLocation)
        for (i, id) in ["alpha", "beta", "gamma"].enumerated() { try publishNewVersion(id, version: "1.1.0", seed: UInt64(900 + i)) }
        try arm(self)
        let result = try await run(arguments)
        #expect(result.status == 3, "exit \(result.status): \(result.all)", sourceLocation: sourceLocation)
        let errors = result.stderrLines.filter { $0.hasPrefix("manashiki-sync: error: \(failing): ") }
        #expect(errors.count == 1, "stderr: \(result.stderr)", sourceLocation: sourceLocation)
        if let line = errors.first {
            #expect(line.contains(" — "), "no advice in: \(line)", sourceLocation: sourceLocation)
            for fragment in messageContains {
                #expect(line.lowercased().contains(fragment.lowercased()), "\"\(fragment)\" not in: \(line)", sourceLocation: sourceLocation)
            }
        }
        var others: [String: Data] = [:]
        for id in ["alpha", "beta", "gamma"] where id != failing { others[id] = expected(id) }
        Invariants.expectStandardOutcome(store: store, before: before, failed: [failing], synced: others, sourceLocation: sourceLocation)
        #expect(!result.all.contains(Keys.publishable), sourceLocation: sourceLocation)
        return result
    }
}
#endif

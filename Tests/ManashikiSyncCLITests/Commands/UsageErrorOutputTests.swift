#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import Testing
import ManashikiTestSupport

@Suite("usage errors (built binary): nearest option, --json summary")
struct UsageErrorOutputTests {
    /// Where the binary runs: the temporary directory itself, not a ScratchDirectory, since a
    /// usage error stops it before it reads or writes any file.
    static let nowhere = FileManager.default.temporaryDirectory

    @Test("an unknown option names the nearest declared one, on stderr, exit 2", arguments: [
        (["sync", "--manifst", "m.json"], "--manifest"),
        (["--hepl"], "--help"),
        (["sync", "--dryrun"], "--dry-run"),
        (["plan", "--lock-timout", "5s"], "--lock-timeout"),
    ])
    func nearestOption(arguments: [String], nearest: String) async throws {
        let result = try await CLIProcess.run(arguments, environment: [:], in: Self.nowhere)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        #expect(result.stderrLines.first?.hasSuffix("did you mean \(nearest)?") == true, "\(result.stderr)")
    }

    @Test("an option nothing resembles gets no guess; a key typed as an option is neither echoed nor matched")
    func noGuess() async throws {
        let far = try await CLIProcess.run(["sync", "--zzzzzzzz"], environment: [:], in: Self.nowhere)
        #expect(far.status == 2)
        #expect(!far.stderr.contains("did you mean"), "\(far.stderr)")
        let key = "--mk_pub_demo_Kq7SecretKeyZ0123456789abcd"
        let secret = try await CLIProcess.run(["sync", key], environment: [:], in: Self.nowhere)
        #expect(secret.status == 2)
        #expect(!secret.all.contains("Kq7SecretKey"), "\(secret.all)")
        #expect(!secret.stderr.contains("did you mean"), "\(secret.stderr)")
    }

    @Test("with --json a usage error still ends stdout with exactly one summary object (outcome usage-error, exit 2)", arguments: [
        ["sync", "--json", "--manifst", "m.json"],
        ["--json", "plan", "--concurrency", "2"],
        ["--json"],
        ["verify", "--json", "--every", "6h"],
    ])
    func jsonSummary(arguments: [String]) async throws {
        let result = try await CLIProcess.run(arguments, environment: [:], in: Self.nowhere)
        #expect(result.status == 2)
        let lines = result.jsonLines()
        #expect(lines.count == 1, "\(result.stdout)")
        let summary = result.summary()
        #expect(summary["schema"] as? String == "manashiki-sync/v1")
        #expect(summary["outcome"] as? String == "usage-error")
        #expect(summary["exitCode"] as? Int == 2)
        #expect(summary["exitName"] as? String == "usage-error")
        #expect(((summary["error"] as? [String: Any])?["message"] as? String)?.isEmpty == false)
        #expect(result.stderrLines.first?.hasPrefix("manashiki-sync: error: ") == true)
    }
}
#endif

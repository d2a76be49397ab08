import Foundation
@testable import ManashikiSyncCLI
import ManashikiSync

/// A hand-made run: a plan with a download, a keep and a blocked item, and its events.
enum RendererFixtures {
    static let target = ArtifactTarget(version: "1.0.0", sha256: String(repeating: "a", count: 64), size: 4 << 20)
    static let download = PlanItem(modelId: "alpha", action: .download(target), reason: "install 1.0.0")
    static let keep = PlanItem(modelId: "beta", action: .keep(version: "2.0.0"), reason: "up to date")
    static let blocked = PlanItem(modelId: "secret", action: .blocked(.sessionUnavailable("environment variable S is not set")),
                                  reason: "private model: environment variable S is not set")
    static let plan = Plan(items: [download, keep, blocked], bytesToFetch: 4 << 20, freeBytes: nil, refusal: nil)
    static let results = [
        ModelResult(modelId: "alpha", planned: download, status: .installed(version: "1.0.0")),
        ModelResult(modelId: "beta", planned: keep, status: .unchanged(version: "2.0.0")),
        ModelResult(modelId: "secret", planned: blocked, status: .blocked),
    ]
    static let report = SyncReport(outcome: .partialFailure, plan: plan, results: results, bytesDownloaded: 4 << 20)

    static func summary(dryRun: Bool = false) -> RunSummary {
        RunSummary(command: "sync", report: report, exitCode: .partialFailure, outcome: "partial-failure", durationSeconds: 1.5, dryRun: dryRun)
    }

    /// A clock the test advances by hand.
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var t = 1000.0
        func advance(_ s: Double) { lock.lock(); t += s; lock.unlock() }
        var now: Double { lock.lock(); defer { lock.unlock() }; return t }
    }

    static func console(_ out: BufferOutput, _ err: BufferOutput, clock: Clock, env: [String: String] = [:]) -> Console {
        Console(out: out, err: err, outIsTerminal: false, width: 100, environment: env, now: { clock.now },
                date: { Date(timeIntervalSince1970: 1_800_000_000) })
    }
}

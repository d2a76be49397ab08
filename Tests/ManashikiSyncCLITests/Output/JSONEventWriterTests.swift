import Foundation
import Testing
@testable import ManashikiSyncCLI
import ManashikiSync

@Suite("JSONEventWriter")
struct JSONEventWriterTests {
    func objects(_ out: BufferOutput) -> [[String: Any]] {
        out.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    @Test("every event becomes one JSON line with schema, type and time; the summary has the documented fields")
    func events() throws {
        let out = BufferOutput(), clock = RendererFixtures.Clock()
        let w = JSONEventWriter(console: RendererFixtures.console(out, BufferOutput(), clock: clock))
        w.handle(.cleanedLeftovers(["partial/alpha.partial"]))
        w.handle(.planReady(RendererFixtures.plan))
        w.handle(.modelStarted(modelId: "alpha", action: RendererFixtures.download.action))
        w.handle(.progress(modelId: "alpha", bytesWritten: 10, totalBytes: nil))
        w.handle(.retrying(modelId: nil, attempt: 1, delay: .milliseconds(1500), reason: "503"))
        RendererFixtures.results.forEach { w.handle(.modelFinished($0)) }
        w.handle(.finished(RendererFixtures.report))
        w.finish(RendererFixtures.summary())
        let lines = objects(out)
        #expect(lines.count == out.lines.count)
        #expect(lines.map { $0["type"] as? String } == ["leftovers.cleaned", "plan", "model.started", "model.progress", "model.retrying",
                                                       "model.finished", "model.finished", "model.finished", "summary"])
        #expect(lines.allSatisfy { $0["schema"] as? String == "manashiki-sync/v1" && ($0["time"] as? String)?.hasSuffix("Z") == true })
        #expect(lines[3]["totalBytes"] as? Int == 4 << 20) // filled from the plan when the transport gives none
        #expect(lines[4]["modelId"] is NSNull)
        #expect(lines[4]["delaySeconds"] as? Double == 1.5)
        let blocked = lines[7]
        #expect(blocked["status"] as? String == "blocked")
        let error = try #require(blocked["error"] as? [String: Any])
        #expect(error["message"] is String && error["hint"] is String && error["kind"] as? String == "terminal")
        let summary = lines[8]
        for key in ["command", "outcome", "exitCode", "exitName", "dryRun", "counts", "models", "bytesDownloaded", "bytesHashed",
                    "durationSeconds", "warnings", "cleanedLeftovers", "plan", "error"] {
            #expect(summary[key] != nil, "summary lacks \(key)")
        }
        #expect(summary["exitCode"] as? Int == 3)
        #expect((summary["counts"] as? [String: Int])?["blocked"] == 1)
    }

    @Test("progress lines are throttled to one per model every half second, the last one always written")
    func throttle() {
        let out = BufferOutput(), clock = RendererFixtures.Clock()
        let w = JSONEventWriter(console: RendererFixtures.console(out, BufferOutput(), clock: clock))
        for i in 1...10 {
            clock.advance(0.1)
            w.handle(.progress(modelId: "alpha", bytesWritten: Int64(i), totalBytes: 10))
        }
        let written = objects(out).compactMap { $0["bytesWritten"] as? Int }
        #expect(written == [1, 6, 10])
    }
}

import Foundation
import Testing
@testable import ManashikiSyncCLI
import ManashikiSync
import Manashiki

@Suite("PlainRenderer")
struct PlainRendererTests {
    @Test("prints the plan, throttles progress to one line per model every 5 s, then results and the summary")
    func lines() {
        let out = BufferOutput(), err = BufferOutput(), clock = RendererFixtures.Clock()
        let r = PlainRenderer(console: RendererFixtures.console(out, err, clock: clock), verbosity: .normal)
        r.handle(.planReady(RendererFixtures.plan))
        r.handle(.modelStarted(modelId: "alpha", action: RendererFixtures.download.action))
        for i in 1...40 {
            clock.advance(0.5)
            r.handle(.progress(modelId: "alpha", bytesWritten: Int64(i) * 100_000, totalBytes: 4 << 20))
        }
        for result in RendererFixtures.results { r.handle(.modelFinished(result)) }
        r.finish(RendererFixtures.summary())
        let progress = out.lines.filter { $0.hasPrefix("alpha: ") && $0.contains("%") }
        #expect(progress.count == 4) // 20 s of progress, one line per 5 s
        #expect(out.lines.first?.hasPrefix("Plan: 1 to download") == true)
        #expect(out.lines.contains { $0.hasPrefix("alpha: installed 1.0.0") })
        #expect(!out.lines.contains { $0.hasPrefix("beta:") }) // unchanged: verbose only
        #expect(out.lines.last?.hasPrefix("sync: partial-failure") == true)
        #expect(!TextSanitizer.containsControlCharacters(out.text))
        #expect(err.text.isEmpty)
    }

    @Test("quiet prints nothing; verbose adds unchanged models")
    func verbosity() {
        let clock = RendererFixtures.Clock()
        let quietOut = BufferOutput()
        let quiet = PlainRenderer(console: RendererFixtures.console(quietOut, BufferOutput(), clock: clock), verbosity: .quiet)
        let verboseOut = BufferOutput()
        let verbose = PlainRenderer(console: RendererFixtures.console(verboseOut, BufferOutput(), clock: clock), verbosity: .verbose)
        for r in [quiet, verbose] {
            r.handle(.planReady(RendererFixtures.plan))
            RendererFixtures.results.forEach { r.handle(.modelFinished($0)) }
            r.finish(RendererFixtures.summary())
        }
        #expect(quietOut.text.isEmpty)
        #expect(verboseOut.lines.contains("beta: unchanged 2.0.0"))
    }

    @Test("control characters coming from outside (a reason, an error) are removed")
    func sanitizes() {
        let out = BufferOutput(), clock = RendererFixtures.Clock()
        let r = PlainRenderer(console: RendererFixtures.console(out, BufferOutput(), clock: clock), verbosity: .normal)
        r.handle(.retrying(modelId: "alpha", attempt: 1, delay: .seconds(2), reason: "bad\u{1B}[31m gateway\r\nagain\u{07}"))
        #expect(out.lines.count == 1)
        #expect(!TextSanitizer.containsControlCharacters(out.text))
        #expect(out.text.contains("retrying in"))
    }
}

@Suite("ProblemReporter")
struct ProblemReporterTests {
    @Test("one stderr line per failed or blocked model with what to do, warnings after")
    func lines() {
        let out = BufferOutput(), err = BufferOutput()
        let reporter = ProblemReporter(console: RendererFixtures.console(out, err, clock: RendererFixtures.Clock()))
        let failed = ModelResult(modelId: "alpha", planned: RendererFixtures.download,
                                 status: .failed(SyncFailure(kind: .retryable, message: "the network failed")))
        reporter.handle(.modelFinished(failed))
        RendererFixtures.results.forEach { reporter.handle(.modelFinished($0)) }
        var report = RendererFixtures.report
        report.warnings = ["beta: deprecated"]
        reporter.finish(RunSummary(command: "sync", report: report, exitCode: .partialFailure, outcome: "x", durationSeconds: 0, dryRun: false))
        #expect(err.lines.count == 3)
        #expect(err.lines[0].hasPrefix("manashiki-sync: error: alpha: the network failed — "))
        #expect(err.lines[1].hasPrefix("manashiki-sync: error: secret: private model without a session token"))
        #expect(err.lines[2] == "manashiki-sync: warning: beta: deprecated")
        #expect(out.text.isEmpty)
    }
}

@Suite("Error advice wording")
struct ErrorAdviceWordingTests {
    @Test("retryable advice says \"usually temporary\" once, even when the SDK's text already does")
    func temporaryOnce() {
        let server = SyncFailure(APIError.server(status: 503, message: nil))
        let line = ErrorAdvice.line(modelId: "a", what: ErrorAdvice.text(for: server).what, todo: ErrorAdvice.text(for: server).todo)
        #expect(line.lowercased().components(separatedBy: "usually temporary").count == 2, "\(line)")
        let network = ErrorAdvice.text(for: SyncFailure(APIError.transport("connection reset")))
        #expect(network.todo.hasPrefix("this is usually temporary: the next run retries"))
    }

    @Test("a model blocked only for want of free space says to free space, not to drop the entry")
    func diskShortfall() {
        let free = ErrorAdvice.text(for: .incompatible([.freeDisk(needsMB: 8, freeMB: 2)]))
        #expect(free.todo.hasPrefix("free space on the store's volume"), "\(free.todo)")
        let mixed = ErrorAdvice.text(for: .incompatible([.platform(supported: [.macos], device: .linux), .freeDisk(needsMB: 8, freeMB: 2)]))
        #expect(mixed.todo.hasPrefix("remove the entry"))
        let profile = ErrorAdvice.text(for: .incompatible([.profileDisk(needsMB: 8, profileMB: 2)]))
        #expect(profile.todo.contains("device profile is wrong"))
    }
}

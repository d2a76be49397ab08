import Foundation
import Testing
@testable import ManashikiSyncCLI
import ManashikiSync

@Suite("ProgressRenderer")
struct ProgressRendererTests {
    func run(env: [String: String] = [:]) -> String {
        let out = BufferOutput(), clock = RendererFixtures.Clock()
        let r = ProgressRenderer(console: RendererFixtures.console(out, BufferOutput(), clock: clock, env: env), verbosity: .normal)
        r.handle(.planReady(RendererFixtures.plan))
        r.handle(.modelStarted(modelId: "alpha", action: RendererFixtures.download.action))
        clock.advance(1)
        r.handle(.progress(modelId: "alpha", bytesWritten: 1 << 20, totalBytes: 4 << 20))
        RendererFixtures.results.forEach { r.handle(.modelFinished($0)) }
        r.finish(RendererFixtures.summary())
        return out.text
    }

    @Test("draws a bar with bytes, rate and ETA per model and a total line, then the summary table")
    func live() {
        let text = run()
        #expect(text.contains("alpha"))
        #expect(text.contains(" 25%  1.0 MiB/4.0 MiB  1.0 MiB/s  ETA 3.0s"))
        #expect(text.contains("total"))
        #expect(text.contains("(0/1 models)"))
        #expect(text.contains("\u{1B}[J"))
        #expect(text.contains("MODEL"))
        #expect(text.contains("sync: partial-failure"))
        #expect(text.contains("\u{1B}[32m"))
    }

    @Test("NO_COLOR leaves cursor movement but no colours")
    func noColor() {
        let text = run(env: ["NO_COLOR": "1"])
        #expect(text.contains("\u{1B}[J"))
        #expect(!text.contains("m\u{1B}[0m"))
        #expect(!text.contains("\u{1B}[32m"))
        #expect(!text.contains("\u{1B}[1m"))
    }
}

import Foundation
import Testing
@testable import ManashikiSyncCLI
import ManashikiSync
import Manashiki

@Suite("SummaryTable, ByteFormat, TextSanitizer")
struct SummaryTableTests {
    @Test("columns line up and the last one is cut to the width")
    func layout() {
        let lines = SummaryTable.render(headers: ["A", "BB"], rows: [["long-name", String(repeating: "x", count: 200)], ["b", "y"]], width: 40)
        #expect(lines[0] == "A          BB")
        #expect(lines[1].count == 40)
        #expect(lines[1].hasSuffix("…"))
        #expect(lines[2] == "b          y")
    }

    @Test("cells never pass control characters through (a hostile version string)")
    func sanitized() {
        let lines = SummaryTable.render(headers: ["MODEL", "VERSION"], rows: [["a", "1.0\u{1B}[2J\u{1B}]0;pwned\u{07}"]], width: 80)
        #expect(lines.allSatisfy { !$0.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F } })
    }

    @Test("live progress lines are cut to the terminal width, colour codes not counted")
    func fit() {
        let plain = String(repeating: "x", count: 120)
        #expect(ProgressRenderer.fit(plain, width: 79).count == 79)
        #expect(ProgressRenderer.fit("short", width: 79) == "short")
        let colored = "\u{1B}[32m" + plain + "\u{1B}[0m"
        let cut = ProgressRenderer.fit(colored, width: 79)
        #expect(cut.replacingOccurrences(of: "\u{1B}[32m", with: "").replacingOccurrences(of: "\u{1B}[0m", with: "").count == 79)
        #expect(cut.hasSuffix("\u{1B}[0m"))
    }

    @Test("the results table has one row per model")
    func results() {
        let lines = SummaryTable.results(RendererFixtures.report, width: 120)
        #expect(lines.count == 4)
        #expect(lines[1].hasPrefix("alpha   installed  1.0.0    4.0 MiB"))
        #expect(SummaryTable.planLine(RendererFixtures.plan).hasPrefix("Plan: 1 to download, 0 to replace (4.0 MiB to fetch)"))
    }

    @Test("a model a trust mechanism vouched for says so, once per mechanism, in the table's NOTE and the plain line; without trust, nothing")
    func trustNote() {
        var signed = ModelResult(modelId: "alpha", planned: RendererFixtures.download, status: .installed(version: "1.0.0"))
        signed.trust = [TrustEvidence(mechanism: "tuf", detail: "targets v2 lists it"), TrustEvidence(mechanism: "model-signing", detail: "k"),
                        TrustEvidence(mechanism: "tuf", detail: "again")]
        #expect(ResultView.trustNote(signed) == "signed (tuf, model-signing)")
        #expect(PlainRenderer.resultLine(signed, seconds: nil) == "alpha: installed 1.0.0 (4.0 MiB), signed (tuf, model-signing)")
        let report = SyncReport(outcome: .changed, plan: RendererFixtures.plan, results: [signed], bytesDownloaded: 4 << 20)
        #expect(SummaryTable.results(report, width: 120)[1].hasSuffix("4.0 MiB  signed (tuf, model-signing)"))
        let plain = RendererFixtures.results[0]
        #expect(ResultView.trustNote(plain) == nil && PlainRenderer.resultLine(plain, seconds: nil) == "alpha: installed 1.0.0 (4.0 MiB)")
    }

    @Test("sizes, rates and durations are locale-independent")
    func formats() {
        #expect(ByteFormat.bytes(512) == "512 B")
        #expect(ByteFormat.bytes(64 << 10) == "64.0 KiB")
        #expect(ByteFormat.bytes(3 << 30) == "3.00 GiB")
        #expect(ByteFormat.rate(0) == "-")
        #expect(DurationText.approximate(0.25) == "0.2s" || DurationText.approximate(0.25) == "0.3s")
        #expect(DurationText.approximate(125) == "2m05s")
        #expect(DurationText.approximate(7300) == "2h01m")
    }

    @Test("one-line text has no control characters")
    func sanitizer() {
        #expect(TextSanitizer.oneLine("a\nb\tc\u{1B}[31md\u{07}") == "a b c[31md")
        #expect(!TextSanitizer.containsControlCharacters("plain\n"))
        #expect(TextSanitizer.containsControlCharacters("\u{1B}[2K"))
    }

    @Test("exit codes are distinct and documented by name")
    func exitCodes() {
        #expect(Set(ExitCode.allCases.map(\.rawValue)).count == ExitCode.allCases.count)
        #expect(ExitCode.busy.rawValue == 75)
        #expect(ExitCode.changesPending.rawValue == 10)
        #expect(ExitCode.partialFailure.description == "3 (partial-failure)")
    }

    @Test("the redacting output hides registered secrets")
    func redaction() {
        let buffer = BufferOutput()
        let out = RedactingOutput(buffer)
        out.hide("mk_pub_acme_0123456789abcdefghij")
        out.write("key=mk_pub_acme_0123456789abcdefghij\n")
        #expect(buffer.text == "key=[redacted]\n")
    }
}

import Foundation
import Testing
@testable import ManashikiSyncCLI

@Suite("DurationText")
struct DurationTextTests {
    @Test("parses the spellings people type", arguments: [
        ("90", 90.0), ("30s", 30), ("10m", 600), ("6h", 21600), ("1d", 86400), ("1h30m", 5400), ("250ms", 0.25), ("0", 0),
    ] as [(String, Double)])
    func parses(text: String, seconds: Double) {
        #expect(DurationText.parse(text).map(JSONEventWriter.seconds) == seconds)
    }

    @Test("rejects what is not a duration, and anything beyond a year (no overflow crash)", arguments: [
        "", "h", "6x", "1.5h", "-3s", "6h30", "soon", "9999999999999999h", "9999999999999999d", "9223372036854775807",
        "367d", "99999999999999999999999s",
    ])
    func rejects(text: String) {
        #expect(DurationText.parse(text) == nil)
    }
}

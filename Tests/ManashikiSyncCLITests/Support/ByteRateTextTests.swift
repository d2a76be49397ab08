import Foundation
import Testing
@testable import ManashikiSyncCLI

@Suite("ByteRateText")
struct ByteRateTextTests {
    @Test("parses rates in binary units, like curl --limit-rate", arguments: [
        ("20M", Int64(20 << 20)), ("512K", 512 << 10), ("1G", 1 << 30), ("1.5M", 3 << 19), ("20MiB", 20 << 20), ("20MB/s", 20 << 20),
        ("20m", 20 << 20), ("4096", 4096), ("1K", 1024),
    ] as [(String, Int64)])
    func parses(text: String, bytes: Int64) {
        #expect(ByteRateText.parse(text) == bytes)
    }

    @Test("rejects what is not a rate, below 1 KiB/s or above 1 TiB/s", arguments: [
        "", "M", "20X", "-5M", "1000", "0", "20 M", "2000G", "nan", "1e9", "20M/h",
    ])
    func rejects(text: String) {
        #expect(ByteRateText.parse(text) == nil)
    }
}

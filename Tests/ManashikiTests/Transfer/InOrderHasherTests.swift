import Foundation
import Testing
@testable import Manashiki

@Suite("InOrderHasher: the progress the connection controller judges by")
struct InOrderHasherProgressTests {
    static let mib: Int64 = 1 << 20

    @Test("bytes the hash could take but has not yet do not count; bytes beyond the first gap do", arguments: [
        // (written ranges in MiB, hashed MiB, progress MiB)
        ([0..<16], 16, 16),          // the hash keeps up: everything written counts
        ([0..<16], 4, 4),            // 12 MiB wait to be hashed: the backlog does not count
        ([8..<16], 0, 8),            // part 2 ahead of a gap at 0: the hash cannot take it yet
        ([0..<8, 10..<20], 8, 18),   // the frontier at a gap: nothing waits for the hash
        ([0..<8, 10..<20], 2, 12),   // 6 MiB behind the frontier's gap wait; the 10 MiB beyond count
        ([0..<4], 5, 4),             // a block hashed in memory just before it is recorded as written
    ] as [([Range<Int64>], Int64, Int64)])
    func progress(_ ranges: [Range<Int64>], _ hashed: Int64, _ expected: Int64) {
        let m = Self.mib
        let written = ByteRangeSet(ranges.map { ($0.lowerBound * m)..<($0.upperBound * m) })
        #expect(InOrderHasher.progress(written: written, hashed: hashed * m) == expected * m)
    }
}

import Foundation
import Testing
@testable import ManashikiSync

@Suite("Disk space: which capacity the plan trusts")
struct DiskSpaceTests {
    /// (important-usage capacity, statvfs, expected)
    static let choices: [(Int64?, Int64?, Int64?)] = [
        (50_000, 10_000, 50_000),   // purgeable space counts (iOS, macOS, visionOS)
        (nil, 10_000, 10_000),      // tvOS, watchOS, Linux: statvfs
        (0, 10_000, 10_000),        // a volume reporting 0 there while statvfs sees space
        (8_000, 10_000, 10_000),    // never less than what statvfs sees free
        (nil, nil, nil),            // unknown: the plan is not refused for space
        (0, nil, 0),
    ]

    @Test("the choice between the important-usage capacity and statvfs", arguments: 0..<6)
    func choice(_ index: Int) {
        let (important, free, expected) = Self.choices[index]
        #expect(DiskSpace.choose(importantUsage: important, statvfs: free) == expected)
    }

    @Test("a store that does not exist yet is measured on its nearest existing parent")
    func nearestParent() {
        let existing: Set<String> = ["/", "/var", "/var/lib"]
        let found = DiskSpace.existingAncestor(of: URL(fileURLWithPath: "/var/lib/manashiki/models")) { existing.contains($0) }
        #expect(found?.path == "/var/lib")
        // Raw, not a ScratchDirectory: the path must not exist (its nearest parent is measured).
        let real = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString)/models")
        #expect(DiskSpace.available(at: real) != nil)
        #if os(Linux)
        #expect(VolumeCapacity.importantUsage(at: FileManager.default.temporaryDirectory) == nil) // none on Linux
        #endif
    }

    @Test("block counts times block size: exact, and saturating where a file system reports all ones")
    func blockArithmetic() {
        #expect(VolumeCapacity.bytes(UInt64(5_000_000_000), of: UInt32(512)) == 2_560_000_000_000) // more blocks than 32 bits hold (Darwin statfs)
        #expect(VolumeCapacity.bytes(UInt64.max, of: UInt32(4096)) == .max)
        #expect(VolumeCapacity.bytes(UInt64(1) << 40, of: UInt(1) << 30) == .max)
        #expect(VolumeCapacity.bytes(0, of: 4096) == 0)
    }
}

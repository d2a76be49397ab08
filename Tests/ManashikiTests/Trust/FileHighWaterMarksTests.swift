import Foundation
import Manashiki
import ManashikiTestSupport
import Testing

/// High-water marks on disk: per-model versions and the latest time trust was checked, which a
/// clock set back cannot lower.
@Suite("File high-water marks")
struct FileHighWaterMarksTests {
    let scratch = ScratchDirectory("high-water")
    var marks: FileHighWaterMarks { FileHighWaterMarks(file: scratch.file("trust/high-water.json")) }

    @Test("versions and the latest check survive a new instance (the file is the state)")
    func persists() throws {
        try marks.record("2.0.0", for: "tiny")
        try marks.recordCheck(Date(timeIntervalSince1970: 1_800_000_000))
        #expect(marks.highest("tiny") == "2.0.0" && marks.highest("other") == nil)
        #expect(marks.latestCheck() == Date(timeIntervalSince1970: 1_800_000_000))
    }

    @Test("a clock set back is judged at the latest check; a later clock becomes the latest check")
    func clockSetBack() {
        let later = Date(timeIntervalSince1970: 1_800_000_000), earlier = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(marks.referenceTime(clock: later) == later)
        #expect(marks.referenceTime(clock: earlier) == later)
        #expect(marks.latestCheck() == later)
        let latest = later.addingTimeInterval(60)
        #expect(marks.referenceTime(clock: latest) == latest && marks.latestCheck() == latest)
    }

    @Test("a file of another format, or damaged, reads as no marks")
    func unreadable() throws {
        try FileManager.default.createDirectory(at: scratch.file("trust"), withIntermediateDirectories: true)
        try Data(#"{"formatVersion": 2, "models": {"tiny": "9.0"}}"#.utf8).write(to: scratch.file("trust/high-water.json"))
        #expect(marks.highest("tiny") == nil)
        try Data("{".utf8).write(to: scratch.file("trust/high-water.json"))
        #expect(marks.highest("tiny") == nil && marks.latestCheck() == nil)
    }
}

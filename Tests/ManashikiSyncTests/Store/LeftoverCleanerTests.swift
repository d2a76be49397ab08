import Testing
import Foundation
#if canImport(Glibc)
import Glibc
#endif
@testable import ManashikiSync
import Manashiki

@Suite("Leftover cleaner")
struct LeftoverCleanerTests {
    @Test("abandoned partial files and state temp files are removed; live partials and other files stay")
    func cleans() throws {
        let store = TestStore()
        try FileManager.default.createDirectory(at: store.layout.partialDirectory, withIntermediateDirectories: true)
        let abandoned = store.layout.partialDirectory.appendingPathComponent("a.x1.partial")
        let live = store.layout.partialDirectory.appendingPathComponent("b.x2.partial")
        let other = store.layout.partialDirectory.appendingPathComponent("notes.txt")
        for url in [abandoned, live, other] { try Data("x".utf8).write(to: url) }
        try Data("{}".utf8).write(to: store.layout.metadataDirectory.appendingPathComponent("state.json.tmp.ab12"))
        store.write("keep", "model")
        // A download in progress holds an exclusive flock on its partial file.
        let fd = open(live.path, O_RDWR)
        #expect(flock(fd, LOCK_EX | LOCK_NB) == 0)
        defer { close(fd) }

        let removed = LeftoverCleaner.clean(store.layout)
        #expect(removed == ["partial/a.x1.partial", "state.json.tmp.ab12"])
        #expect(!FileManager.default.fileExists(atPath: abandoned.path))
        #expect(FileManager.default.fileExists(atPath: live.path))
        #expect(FileManager.default.fileExists(atPath: other.path))
        #expect(store.contents("keep") == "model")
    }
}

/// Kept (resumable) partials: which ones a run removes, by age and by the models it still wants.
@Suite("Leftover cleaner: kept partials")
struct LeftoverCleanerKeptPartialTests {
    /// One kept partial, as a case of the table.
    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var model: String
        var ageDays: Double
        var retentionDays: Double?
        var wanted: Set<String>?
        var held = false
        var removed: Bool
    }

    static let cases: [Case] = [
        Case(testDescription: "untouched for longer than the retention: removed", model: "a", ageDays: 8, retentionDays: 7, wanted: nil, removed: true),
        Case(testDescription: "younger than the retention: kept", model: "a", ageDays: 1, retentionDays: 7, wanted: nil, removed: false),
        Case(testDescription: "a longer retention keeps an 8-day-old partial", model: "a", ageDays: 8, retentionDays: 30, wanted: nil, removed: false),
        Case(testDescription: "its model left the manifest: removed however young", model: "gone", ageDays: 0, retentionDays: 7, wanted: ["a"], removed: true),
        Case(testDescription: "its model is still wanted and it is young: kept", model: "a", ageDays: 0, retentionDays: 7, wanted: ["a"], removed: false),
        Case(testDescription: "held by a live download: kept however old and unwanted", model: "gone", ageDays: 30, retentionDays: 7, wanted: ["a"], held: true, removed: false),
    ]

    @Test("a kept partial is removed only when it is stale or its model is no longer wanted, never while held", arguments: cases)
    func keptPartial(_ c: Case) throws {
        let store = TestStore()
        let folder = store.layout.partialDirectory
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = "\(c.model).k1.partial"
        let partial = folder.appendingPathComponent(name)
        try Data(repeating: 7, count: 4096).write(to: partial)
        let sidecar = PartialSidecar(modelId: c.model, sha256: String(repeating: "ab", count: 32), size: 1 << 20,
                                     version: "1.0.0", bytesKnownGood: 4096)
        try sidecar.encoded().write(to: folder.appendingPathComponent(name + ".json"))
        let touched = Date().addingTimeInterval(-c.ageDays * 86_400)
        try FileManager.default.setAttributes([.modificationDate: touched], ofItemAtPath: partial.path)
        let fd = open(partial.path, O_RDWR)
        defer { close(fd) }
        if c.held { #expect(flock(fd, LOCK_EX | LOCK_NB) == 0) }

        let removed = LeftoverCleaner.clean(store.layout, keepingPartialsOf: c.wanted, retention: c.retentionDays.map { $0 * 86_400 })

        #expect(removed.contains("partial/\(name)") == c.removed, "\(removed)")
        #expect(FileManager.default.fileExists(atPath: partial.path) == !c.removed)
        // The sidecar goes with its partial, and stays with it.
        #expect(FileManager.default.fileExists(atPath: partial.path + ".json") == !c.removed)
    }
}

import Foundation
import Manashiki
import Testing
@testable import ManashikiSync

@Suite("Bundle index")
struct BundleIndexTests {
    static let sha = String(repeating: "ab", count: 32)

    @Test("an index round-trips and writes its format version first")
    func roundTrip() throws {
        let facts = ArtifactFacts(visibility: .public, lifecycle: ModelLifecycle(status: .production),
                                  compatibility: ModelCompatibility(platforms: [.linux], minOs: "6.1"))
        let index = BundleIndex(models: [PinnedArtifact(modelId: "alpha", version: "1.0.0", size: 3, sha256: Self.sha, record: facts)])
        let data = try index.encoded()
        let text = String(decoding: data, as: UTF8.self)
        let first = try #require(text.range(of: "\"formatVersion\""))
        let models = try #require(text.range(of: "\"models\""))
        #expect(first.lowerBound < models.lowerBound)
        #expect(try BundleIndex.decode(data, location: "x/index.json") == index)
    }

    @Test("an index of a future format is refused, naming the file and saying to upgrade")
    func futureVersion() {
        let data = Data(#"{"formatVersion": 7, "models": [{"unknown": true}]}"#.utf8)
        #expect {
            try BundleIndex.decode(data, location: "/media/usb/index.json")
        } throws: { error in
            let text = "\(error)"
            return text.contains("/media/usb/index.json") && text.contains("format 7") && text.contains("upgrade")
        }
    }

    @Test("broken indexes are refused with the file and the JSON path", arguments: [
        (#"[1, 2]"#, "not a valid bundle index"),
        (#"{"models": []}"#, "formatVersion: is missing"),
        (#"{"formatVersion": 1, "models": [{"modelId": "a", "version": "1", "size": 1}]}"#, "models[0].sha256: is missing"),
        (#"{"formatVersion": 1, "models": [{"modelId": "../etc", "version": "1", "size": 1, "sha256": "\#(sha)"}]}"#, "models[0].modelId"),
        (#"{"formatVersion": 1, "models": [{"modelId": "a", "version": "1", "size": -1, "sha256": "\#(sha)"}]}"#, "models[0].size: is negative"),
        (#"{"formatVersion": 1, "models": [{"modelId": "a", "version": "1", "size": 1, "sha256": "ABC"}]}"#, "models[0].sha256: is not 64"),
    ])
    func broken(json: String, expected: String) {
        #expect {
            try BundleIndex.decode(Data(json.utf8), location: "b/index.json")
        } throws: { error in
            "\(error)".contains("b/index.json") && "\(error)".contains(expected)
        }
    }

    @Test("a lock's signedMetadata (trust.tuf) is optional: a lock without it decodes, one with it round-trips, both format 1")
    func lockSignedMetadata() throws {
        let old = try LockFile.decode(Data(#"{"formatVersion": 1, "models": []}"#.utf8), location: "old.lock.json")
        #expect(old.signedMetadata == nil)
        let text = #"{"formatVersion": 1, "models": [], "signedMetadata": {"root": 2, "timestamp": 7, "snapshot": 7, "targets": 5}}"#
        let signed = try LockFile.decode(Data(text.utf8), location: "new.lock.json")
        #expect(signed.signedMetadata.map { [$0.root, $0.timestamp, $0.snapshot, $0.targets] } == [2, 7, 7, 5])
        let again = try LockFile.decode(try VersionedJSON.encode(signed, pretty: true), location: "again")
        #expect(again == signed && again.formatVersion == 1)
    }

    @Test("a lock file of a future format is refused the same way")
    func futureLock() {
        #expect {
            try LockFile.decode(Data(#"{"formatVersion": 2, "models": []}"#.utf8), location: "app/manashiki.lock.json")
        } throws: { error in
            "\(error)".contains("app/manashiki.lock.json") && "\(error)".contains("format 2") && "\(error)".contains("upgrade")
        }
    }
}

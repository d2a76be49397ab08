import Foundation
import ManashikiCore
import ManashikiSync
import ManashikiTestSupport
import Testing

/// `trust.tuf` in the manifest: what loads, and every mistake named by its field with the fix.
@Suite("Manifest trust.tuf")
struct TrustSettingsTests {
    static func manifest(_ trust: String) -> String { #"{"schemaVersion": 1, "trust": "# + trust + #", "models": []}"# }

    static func problems(_ json: String) -> [ManifestProblem] {
        do { _ = try Manifest.decode(Data(json.utf8)); return [] } catch let error as ManifestError { return error.problems } catch { return [] }
    }

    @Test("a root file and an https metadata URL load; the file resolves against the manifest's directory")
    func rootFile() throws {
        let scratch = ScratchDirectory("trust-manifest")
        try Data("{\"signed\":{}}".utf8).write(to: scratch.file("root.json"))
        try Data(Self.manifest(#"{"tuf": {"metadataURL": "https://models.example.com/tuf/metadata/", "root": {"file": "root.json"}}}"#).utf8)
            .write(to: scratch.file("manashiki.json"))
        let m = try Manifest.load(contentsOf: scratch.file("manashiki.json"))
        #expect(m.trust.tuf?.metadataURL.absoluteString == "https://models.example.com/tuf/metadata/")
        #expect(m.trust.tuf?.root == .file("root.json"))
        #expect(try m.tufRootData() == Data("{\"signed\":{}}".utf8))
    }

    @Test("the root written inline loads, as canonical JSON")
    func inlineRoot() throws {
        let m = try Manifest.decode(Data(Self.manifest(#"{"tuf": {"metadataURL": "http://127.0.0.1:8080/tuf/", "root": {"signatures": [], "signed": {"_type": "root", "version": 1}}}}"#).utf8))
        #expect(try m.tufRootData() == Data(#"{"signatures":[],"signed":{"_type":"root","version":1}}"#.utf8))
    }

    @Test("each mistake names its field and the fix", arguments: [
        (#"{"tuf": {"root": {"file": "r.json"}}}"#, "trust.tuf.metadataURL", "add"),
        (#"{"tuf": {"metadataURL": "http://models.example.com/", "root": {"file": "r.json"}}}"#, "trust.tuf.metadataURL", "https"),
        (#"{"tuf": {"metadataURL": "https://m.example.com/"}}"#, "trust.tuf.root", "root.json"),
        (#"{"tuf": {"metadataURL": "https://m.example.com/", "root": {"file": "r.json", "signed": {}}}}"#, "trust.tuf.root", "file"),
        (#"{"tuf": {"metadataURL": "https://m.example.com/", "root": {"signed": {"_type": "targets"}, "signatures": []}}}"#, "trust.tuf.root", "file"),
        (#"{"tuf": {"metadataURL": "https://m.example.com/", "root": "r.json"}}"#, "trust.tuf.root", "file"),
        (#"{"tuff": {}}"#, "trust.tuff", "tuf"),
        (#"{"tuf": {"metadataURL": "https://m.example.com/", "root": {"file": "r.json"}, "mirror": 1}}"#, "trust.tuf.mirror", "metadataURL"),
    ])
    func mistakes(trust: String, path: String, hint: String) {
        let problems = Self.problems(Self.manifest(trust))
        #expect(problems.count == 1, "\(problems)")
        #expect(problems.first?.path == path, "\(problems)")
        #expect(problems.first.map { ($0.hint ?? "").contains(hint) || $0.message.contains(hint) } == true, "\(problems)")
    }
}

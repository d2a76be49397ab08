import Foundation
import ManashikiTestSupport
import ManashikiSync
import Testing
@testable import manashiki_doc_snippets

/// The JSON blocks of README.md and docs/*.md, read by the real manifest loader
/// (`Manifest.load(contentsOf:)`, what `manashiki-sync` and `ModelSync.restore` use).
@Suite("Doc tests: JSON manifests")
struct ManifestBlockTests {
    static let manifests = DocBlockCatalog.ids("json") { !$0.markers.contains("other") && !$0.markers.contains("invalid") }
    static let invalid = DocBlockCatalog.ids("json") { $0.markers.contains("invalid") }

    /// The block as a whole manifest: an `entry` goes into `models`, a `fragment`'s members
    /// into the top-level object.
    static func manifestText(_ block: DocBlock) -> String {
        if block.markers.contains("entry") { return #"{"schemaVersion": 1, "models": [\#(block.text)]}"# }
        if block.markers.contains("fragment") { return #"{"schemaVersion": 1, \#(block.text), "models": []}"# }
        return block.text
    }

    /// Loads the block from a file named `manashiki.json` in a scratch directory.
    static func load(_ block: DocBlock) throws -> Manifest {
        let directory = ScratchDirectory("doc-json")
        let file = directory.file("manashiki.json")
        try Data(manifestText(block).utf8).write(to: file)
        return try Manifest.load(contentsOf: file)
    }

    @Test("a manifest shown in the guides is valid", arguments: manifests)
    func valid(_ id: String) throws {
        let block = DocBlockCatalog.block(id)
        do {
            let manifest = try Self.load(block)
            #expect(block.markers.contains("fragment") || !manifest.models.isEmpty, "\(id): a manifest without models")
        } catch let error as ManifestError {
            Issue.record("\(id) is not a valid manifest: \(error.problems.map(\.description).joined(separator: "; "))")
        }
    }

    @Test("a manifest marked invalid fails with exactly the errors the next text block shows", arguments: invalid)
    func invalidFailsAsShown(_ id: String) throws {
        let block = DocBlockCatalog.block(id)
        let following = docBlocks.drop { $0.id != id }.dropFirst().first { $0.file == block.file }
        let errors = try #require(following.flatMap { $0.language == "text" ? $0 : nil }, "\(id): no text block with the errors follows")
        let shown: [String] = errors.text.split(separator: "\n").map { line in
            guard let range = line.range(of: "manashiki.json: ") else { return String(line) }
            return String(line[range.upperBound...])
        }
        do {
            _ = try Self.load(block)
            Issue.record("\(id) is marked invalid but loads")
        } catch let error as ManifestError {
            #expect(error.problems.map(\.description) == shown, "\(id): the loader says\n\(error.problems.map(\.description).joined(separator: "\n"))")
        }
    }

    @Test("a JSON block that is not a manifest says so (other), and is listed")
    func others() {
        let others = DocBlockCatalog.ids("json") { $0.markers.contains("other") }
        print("JSON blocks that are not manifests (not loaded):\n  " + others.joined(separator: "\n  "))
        #expect(Self.manifests.count >= 5, "the plugin found \(Self.manifests.count) manifests")
    }
}

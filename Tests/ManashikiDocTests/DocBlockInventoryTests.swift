import Foundation
import Testing
@testable import manashiki_doc_snippets

/// The table of blocks the build compiled is the one of the files on disk, and every marker is
/// one the convention (docs/development.md, "Doc tests") knows.
@Suite("Doc tests: inventory")
struct DocBlockInventoryTests {
    @Test("the blocks compiled are those of README.md and docs/*.md as they are now")
    func fresh() {
        #expect(docFingerprint == DocBlockCatalog.fingerprintOnDisk,
                "README.md or docs/*.md changed after the build read them (the DocBlocksPlugin did not run again): build again")
        #expect(Set(docBlocks.map(\.file)).isSuperset(of: ["README.md", "docs/sdk.md", "docs/sync-agent.md"]))
    }

    @Test("every marker is one of the convention's")
    func markersKnown() {
        #expect(DocBlockCatalog.unknownMarkers.isEmpty, "unknown markers: \(DocBlockCatalog.unknownMarkers)")
        let unmarked = docBlocks.filter { $0.language.isEmpty }.map(\.id)
        print("Blocks without a language (not code, not checked): \(unmarked.joined(separator: ", "))")
    }
}

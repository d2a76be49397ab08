#if os(Linux) || os(macOS)
import Foundation
import Manashiki
import ManashikiTestSupport
import Testing
@testable import manashiki_doc_snippets

/// The Swift blocks of README.md and docs/*.md: each is compiled into `manashiki-doc-snippets`
/// by the DocBlocksPlugin (a snippet that drifts from the API fails the build), and each `run`
/// block runs against the development registry and must do what it shows.
@Suite("Doc tests: Swift blocks")
struct SwiftBlockTests {
    static let runnable = DocBlockCatalog.ids("swift") { $0.markers.contains("run") }

    @Test("every Swift block is compiled here, but apple blocks (compiled on Apple platforms, only parsed here) and package blocks (read by dump-package); apple ones are listed")
    func compiledOrListed() {
        let blocks = docBlocks.filter { DocBlockCatalog.kind($0) == "swift" }
        #expect(blocks.count >= 10, "the plugin found \(blocks.count) Swift blocks")
        var notCompiled: [String] = []
        for block in blocks {
            let excused = block.markers.contains("apple") || block.markers.contains("package") || block.markers.contains("file")
            #expect((block.run != nil) != excused, "\(block.id): markers \(block.markers)")
            if block.markers.contains("apple") { notCompiled.append("\(block.id) (apple: \(block.text.prefix { $0 != "\n" }))") }
            // An apple block says where it is compiled, in its first line (a reason in the block).
            if block.markers.contains("apple") {
                #expect(block.text.hasPrefix("//") && block.text.prefix { $0 != "\n" }.contains("compiled by the Apple workflow"), "\(block.id)")
            }
        }
        print("Swift blocks compiled on Apple platforms only (.github/workflows/apple.yml), parsed here:\n  " + notCompiled.joined(separator: "\n  "))
    }

    @Test("a run block runs against the development registry and installs what it downloads", arguments: runnable)
    func runs(_ id: String) async throws {
        let block = DocBlockCatalog.block(id)
        let sandbox = try DocSandbox()
        try sandbox.writeFiles(of: block.file)
        let child = try RunningChild.start(BuiltProduct.url("manashiki-doc-snippets"), ["run", id],
                                           environment: sandbox.environment, in: sandbox.directory)
        let result = await child.finish(timeout: 120)
        #expect(result.status == 0, "\(id) failed:\n\(result.all)")
        let problems = sandbox.problems(store: sandbox.defaultStore)
        #expect(problems.isEmpty, "\(id): \(problems.joined(separator: "; "))\n\(result.all)")
    }

    @Test("the check catches a snippet that returns without installing (two async lets never awaited)")
    func checkCatchesUnawaitedDownloads() async throws {
        let sandbox = try DocSandbox()
        let client = try ManashikiClient(apiKey: DocSandbox.demoKey, baseURL: sandbox.registry.apiBaseURL,
                                         storageDirectory: sandbox.defaultStore)
        var limited = DownloadOptions()
        limited.rateLimiter = BandwidthLimiter(bytesPerSecond: 20 << 20)
        let options = limited
        // The bandwidth snippet as docs/sdk.md had it (issue 26, 1): it returned in milliseconds.
        func snippet() async throws {
            async let _ = client.downloadModel("whisper-tiny-en", session: nil, expecting: nil, options: options)
            async let _ = client.downloadModel("distil-small-en", session: nil, expecting: nil, options: options)
        }
        try? await snippet()
        let problems = sandbox.problems(store: sandbox.defaultStore)
        #expect(!problems.isEmpty, "the effect check passed a snippet that installs nothing")
    }
}
#endif

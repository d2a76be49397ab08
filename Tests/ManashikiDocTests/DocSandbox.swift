#if os(Linux) || os(macOS)
import Foundation
import ManashikiRegistry
import ManashikiTestSupport
@testable import manashiki_doc_snippets

/// Where a doc block runs: the bundled development registry (examples/registry) started on free
/// loopback ports, and a scratch directory that is the block's working directory, `HOME` and
/// `XDG_DATA_HOME` (so the SDK's default store is `<scratch>/ManashikiModels`).
final class DocSandbox {
    /// The demo catalog's publishable key.
    static let demoKey = "mk_pub_demo_0123456789abcdefghij"

    let registry: DevelopmentRegistry
    private let scratch = ScratchDirectory("doc-block")
    var directory: URL { scratch.url }

    init() throws {
        registry = try DevelopmentRegistry.start(catalogDirectory: DocBlockCatalog.root.appendingPathComponent("examples/registry"))
    }

    deinit { registry.stop() }

    /// The registry's API address, as the guides' `http://127.0.0.1:8080` stands for it.
    var api: String { registry.apiBaseURL.absoluteString.trimmingCharacters(in: CharacterSet(charactersIn: "/")) }

    /// The SDK's default store in the sandbox.
    var defaultStore: URL { directory.appendingPathComponent("ManashikiModels") }

    /// The environment of a block's process.
    var environment: [String: String] {
        ["XDG_DATA_HOME": directory.path, "MANASHIKI_DOC_API": api, "MANASHIKI_API_KEY": Self.demoKey]
    }

    /// Writes the `json file=NAME` blocks of `file` into the sandbox (the guide's address replaced).
    func writeFiles(of file: String) throws {
        for block in docBlocks where block.file == file && DocBlockCatalog.kind(block) == "json" {
            guard let name = DocBlockCatalog.value("file", of: block) else { continue }
            try Data(substituted(block.text).utf8).write(to: directory.appendingPathComponent(name))
        }
    }

    /// `text` with the guides' registry address replaced by this registry's.
    func substituted(_ text: String) -> String { text.replacingOccurrences(of: "http://127.0.0.1:8080", with: api) }

    /// What is wrong with what a Swift block left behind: it must have asked the registry
    /// something, and every model whose download it asked for must be installed in `store` with
    /// the registry's bytes. Empty when the effects are as shown.
    func problems(store: URL) -> [String] {
        let log = registry.requestLog()
        var problems: [String] = []
        if log.isEmpty { problems.append("it sent no request to the development registry: it did nothing") }
        let downloads = Set(log.filter { $0.origin == .api && $0.path.hasPrefix("/api/download/") }
            .map { String($0.path.dropFirst("/api/download/".count)) })
        for id in downloads.sorted() where !FileManager.default.fileExists(atPath: store.appendingPathComponent("\(id).bin").path) {
            problems.append("it asked for \(id) but \(store.path)/\(id).bin is not installed")
        }
        return problems + unverified(store: store)
    }

    /// Every `<id>.bin` in `store` that does not hold the registry's bytes of `id`.
    func unverified(store: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: store.path)) ?? []
        return names.filter { $0.hasSuffix(".bin") }.sorted().compactMap { name in
            let id = String(name.dropLast(4))
            let bytes = try? Data(contentsOf: store.appendingPathComponent(name))
            return bytes == registry.artifactBytes(modelId: id) ? nil : "\(store.path)/\(name) is not the registry's \(id)"
        }
    }
}
#endif

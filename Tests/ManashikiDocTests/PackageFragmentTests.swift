#if os(Linux) || os(macOS)
import Foundation
import ManashikiProcess
import ManashikiTestSupport
import Testing
@testable import manashiki_doc_snippets

/// The `swift package` blocks (the README's install section): a Package.swift fragment that,
/// put into a new package depending on this one, is a manifest SwiftPM reads, and names only
/// library products this package has, under the package name SwiftPM gives a URL dependency.
/// `swift package dump-package` reads both manifests (a few seconds; nothing is built).
@Suite("Doc tests: Package.swift fragments")
struct PackageFragmentTests {
    static let fragments = DocBlockCatalog.ids("swift") { $0.markers.contains("package") }

    /// `swift package dump-package` of the package in `directory`, as JSON.
    static func dump(_ directory: URL, scratch: URL) async throws -> [String: Any] {
        let swift = try #require(ChildProcess.executable(named: "swift"), "swift is not on PATH")
        // HOME in the scratch folder: SwiftPM and clang keep caches under it (~/.cache), and
        // RunningChild's default HOME is the working directory, here the repository itself.
        let child = try RunningChild.start(swift, ["package", "--scratch-path", scratch.path, "dump-package"],
                                           environment: ["HOME": scratch.appendingPathComponent("home").path],
                                           path: ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
                                           in: directory)
        let result = await child.finish(timeout: 300)
        try #require(result.status == 0, "swift package dump-package in \(directory.path) failed:\n\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    @Test("a Package.swift fragment is a manifest naming this package's library products", arguments: fragments)
    func fragment(_ id: String) async throws {
        let block = DocBlockCatalog.block(id)
        let scratch = ScratchDirectory("doc-package")
        let app = scratch.file("MyApp")
        let name = String(try #require(block.text.firstMatch(of: /\.package\(url: "[^"]*\/([^"\/]+?)(\.git)?"/)?.1, "\(id): no .package(url:)"))
        let dependency = scratch.file("deps/\(name)")
        try FileManager.default.createDirectory(at: dependency.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: dependency, withDestinationURL: DocBlockCatalog.root)
        for folder in ["Sources/MyApp", "Tests/MyAppTests"] {
            try FileManager.default.createDirectory(at: app.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        let fragment = block.text.replacing(/\.package\(url: "[^"]*"[^)]*\)/, with: ".package(path: \"\(dependency.path)\")")
        let manifest = "// swift-tools-version: 6.0\nimport PackageDescription\n\nlet package = Package(\n    name: \"MyApp\",\n"
            + "    platforms: [.macOS(.v13), .iOS(.v16)],\n" + fragment.trimmingCharacters(in: .whitespacesAndNewlines)
            .trimmingCharacters(in: CharacterSet(charactersIn: ",")) + "\n)\n"
        try Data(manifest.utf8).write(to: app.appendingPathComponent("Package.swift"))
        let mine = try await Self.dump(DocBlockCatalog.root, scratch: scratch.file("root-build"))
        let theirs = try await Self.dump(app, scratch: scratch.file("app-build"))
        let libraries = Set(((mine["products"] as? [[String: Any]]) ?? []).compactMap { product -> String? in
            (product["type"] as? [String: Any])?["library"] != nil ? product["name"] as? String : nil
        })
        let named = ((theirs["targets"] as? [[String: Any]]) ?? []).flatMap { target in
            ((target["dependencies"] as? [[String: Any]]) ?? []).compactMap { $0["product"] as? [Any] }
        }
        #expect(!named.isEmpty, "\(id) names no product")
        for product in named {
            #expect(product.count >= 2 && product[1] as? String == name, "\(id): \(product) is not of package \(name)")
            #expect(libraries.contains(product.first as? String ?? ""), "\(id): \(String(describing: product.first)) is not a library product (\(libraries.sorted()))")
        }
    }
}
#endif

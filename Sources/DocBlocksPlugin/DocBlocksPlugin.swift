import Foundation
import PackagePlugin

/// Build-tool plugin of the doc tests (docs/development.md, "Doc tests"): has
/// `manashiki-doc-blocks` turn the fenced blocks of README.md and docs/*.md into sources of the
/// target that uses it, one Swift file per Markdown file (each Swift block a function, with
/// `#sourceLocation` so a compiler error names the Markdown file and line) plus `DocBlocks.swift`,
/// the table of every block of every language with its markers. A snippet that drifts from the
/// API fails the build.
///
/// The command's inputs are the Markdown files, so editing one (a block changed or added)
/// regenerates the sources at the next build. A new docs/*.md file is seen when SwiftPM plans
/// the build again (every clean build, CI's included; locally after Package.swift changes):
/// `DocBlocks.fingerprint` lets the test fail, saying so, when the build read other files.
@main
struct DocBlocksPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let docs = root.appending(path: "docs")
        let guides = (try? FileManager.default.contentsOfDirectory(at: docs, includingPropertiesForKeys: nil)) ?? []
        let markdown = [root.appending(path: "README.md")] + guides.filter { $0.pathExtension == "md" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL
        let table = output.appending(path: "DocBlocks.swift")
        let sources = markdown.map { output.appending(path: "Doc_" + $0.deletingPathExtension().lastPathComponent + ".swift") }
        return [.buildCommand(displayName: "Doc blocks of README.md and docs/*.md",
                              executable: try context.tool(named: "manashiki-doc-blocks").url,
                              arguments: [root.path, table.path] + zip(markdown, sources).flatMap { [$0.path, $1.path] },
                              inputFiles: markdown, outputFiles: [table] + sources)]
    }
}

#if os(Linux) || os(macOS)
import Foundation
import ManashikiTestSupport
import Testing
@testable import manashiki_doc_snippets

/// The shell blocks of README.md and docs/*.md: run with bash against the development registry,
/// in a scratch directory holding `manashiki.json` (that registry, two demo models, the store
/// `models`), with the built `manashiki-sync` and `manashiki-registry` first on `PATH` and the
/// demo key in `MANASHIKI_API_KEY`. Each command's exit code is checked.
@Suite("Doc tests: shell commands")
struct ShellBlockTests {
    static let runnable = DocBlockCatalog.ids("sh") { !$0.markers.contains("no-run") }

    /// The peers (Peer+Catalog.swift) a block's commands run, by the words of its commands.
    static func peers(_ id: String) -> [Peer] {
        let words = Set(commands(DocBlockCatalog.block(id).text).joined(separator: " ")
            .split(whereSeparator: { " \t|;&$()`'\"".contains($0) }).map(String.init))
        return Peer.all.filter { if case .command(let name) = $0.kind { words.contains(name) } else { false } }
    }

    /// The runnable blocks that run no peer, and those that run curl (and nothing else of the catalog).
    static let runnableAlone = runnable.filter { peers($0).isEmpty }
    static let runnableWithCurl = runnable.filter { peers($0).map(\.name) == ["curl"] }

    /// The block's commands: one per line, `\`-continued lines joined, blank and comment lines left out.
    static func commands(_ text: String) -> [String] {
        var commands: [String] = []
        var pending = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if pending.isEmpty && (trimmed.isEmpty || trimmed.hasPrefix("#")) { continue }
            if trimmed.hasSuffix("\\") { pending += line.dropLast().description + " "; continue }
            commands.append(pending + line)
            pending = ""
        }
        return commands
    }

    /// A bash script running `commands` one after another, each exit code appended to `exits`.
    static func script(_ commands: [String], exits: URL) -> String {
        commands.map { "{ \($0)\n} </dev/null; echo $? >> '\(exits.path)'" }.joined(separator: "\n") + "\n"
    }

    @Test("a shell block runs against the development registry with the exit codes it shows", arguments: runnableAlone)
    func runs(_ id: String) async throws { try await Self.run(id) }

    @Test("a shell block with curl runs against the development registry with the exit codes it shows", .requires(.curl),
          arguments: runnableWithCurl)
    func runsWithCurl(_ id: String) async throws { try await Self.run(id) }

    @Test("every runnable shell block runs in one of the two tests above (a block running another peer needs a test requiring it)")
    func everyBlockRuns() {
        let other = Set(Self.runnable).subtracting(Self.runnableAlone + Self.runnableWithCurl)
        #expect(other.isEmpty, "blocks running peers no test requires: \(other.sorted().map { "\($0) (\(Self.peers($0).map(\.name)))" })")
    }

    static func run(_ id: String) async throws {
        let block = DocBlockCatalog.block(id)
        let sandbox = try DocSandbox()
        let commands = Self.commands(sandbox.substituted(block.text))
        let expected = DocBlockCatalog.value("exits", of: block).map { $0.split(separator: ",").compactMap { Int32($0) } }
            ?? Array(repeating: 0, count: commands.count)
        try #require(expected.count == commands.count, "\(id): exits= names \(expected.count) codes for \(commands.count) commands")
        let manifest = #"{"schemaVersion": 1, "registry": {"baseURL": "\#(sandbox.api)"}, "store": {"directory": "models"}, "#
            + #""models": [{"id": "whisper-tiny-en", "version": "^1.0"}, {"id": "distil-small-en"}]}"#
        try Data(manifest.utf8).write(to: sandbox.directory.appendingPathComponent("manashiki.json"))
        try sandbox.writeFiles(of: block.file)
        let exits = sandbox.directory.appendingPathComponent(".exits")
        let scriptFile = sandbox.directory.appendingPathComponent(".block.sh")
        try Data(Self.script(commands, exits: exits).utf8).write(to: scriptFile)
        let bin = BuiltProduct.manashikiSync.deletingLastPathComponent().path
        let child = try RunningChild.start(URL(fileURLWithPath: "/bin/bash"), [scriptFile.path], environment: sandbox.environment,
                                           path: "\(bin):/usr/local/bin:/usr/bin:/bin", in: sandbox.directory)
        let result = await child.finish(timeout: 180)
        let codes = (try? String(contentsOf: exits, encoding: .utf8))?.split(separator: "\n").compactMap { Int32($0) } ?? []
        #expect(codes == expected, "\(id): exit codes \(codes), the guide shows \(expected)\n\(zip(commands, codes).map { "\($1)  \($0)" }.joined(separator: "\n"))\n\(result.all)")
        let problems = sandbox.unverified(store: sandbox.directory.appendingPathComponent("models"))
        #expect(problems.isEmpty, "\(id): \(problems.joined(separator: "; "))")
    }

    @Test("shell blocks that cannot run here are marked no-run, and are listed")
    func listed() {
        let skipped = DocBlockCatalog.ids("sh") { $0.markers.contains("no-run") }.map { id in
            "\(id): \(Self.commands(DocBlockCatalog.block(id).text).first ?? "")"
        }
        print("Shell blocks not run (no-run):\n  " + skipped.joined(separator: "\n  "))
        #expect(Self.runnable.count >= 3, "only \(Self.runnable.count) shell blocks run")
        #expect(Self.commands("a \\\n  b # c\n\n# d\ne") == ["a    b # c", "e"])
    }
}
#endif

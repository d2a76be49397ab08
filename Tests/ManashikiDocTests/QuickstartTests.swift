#if os(Linux) || os(macOS)
import Foundation
import ManashikiLoopback
import ManashikiTestSupport
import Testing

/// The README's first command, `./examples/quickstart.sh`, with the built binaries
/// (`QUICKSTART_BIN`: the release build it does itself is not repeated here), in a copy of the
/// package's `examples/` so that its `quickstart/` directory is a scratch one; then the commands
/// its closing lines tell the reader to run, exactly as printed.
@Suite("Doc tests: the quick start and its closing \"try:\"", .serialized)
struct QuickstartTests {
    /// A directory laid out as the package for the script: `examples/quickstart.sh`, `examples/registry`.
    static func package() throws -> ScratchDirectory {
        let scratch = ScratchDirectory("quickstart-package")
        let examples = try scratch.directory("examples")
        for item in ["quickstart.sh", "registry"] {
            try FileManager.default.copyItem(at: DocBlockCatalog.root.appendingPathComponent("examples/\(item)"),
                                             to: examples.appendingPathComponent(item))
        }
        return scratch
    }

    /// Runs the quick start on `port` (a free one from the caller) in `package`.
    static func quickstart(_ package: ScratchDirectory, port: Int) async throws -> ChildResult {
        let bin = BuiltProduct.manashikiSync.deletingLastPathComponent().path
        let child = try RunningChild.start(URL(fileURLWithPath: "/bin/bash"), ["examples/quickstart.sh", "--port", String(port)],
                                           environment: ["QUICKSTART_BIN": bin], in: package.url)
        return await child.finish(timeout: 180)
    }

    /// The indented command lines after the line ending in `marker`.
    static func command(after marker: String, in output: String) -> [String]? {
        let lines = output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let index = lines.firstIndex(where: { $0.hasSuffix(marker) }), index + 1 < lines.count,
              lines[index + 1].hasPrefix("  ") else { return nil }
        return lines[index + 1].trimmingCharacters(in: .whitespaces).split(separator: " ").map(String.init)
    }

    /// Runs a printed command line (its program is an absolute path, or relative to `package`).
    static func start(_ command: [String], in package: ScratchDirectory) throws -> RunningChild {
        let program = command[0].hasPrefix("/") ? URL(fileURLWithPath: command[0]) : package.url.appendingPathComponent(command[0])
        return try RunningChild.start(program, Array(command.dropFirst()), in: package.url)
    }

    /// The `trust.tuf` the quick start wrote into its manifest (nil: none).
    static func tufTrust(_ package: ScratchDirectory) throws -> [String: Any]? {
        let data = try Data(contentsOf: package.url.appendingPathComponent("quickstart/manashiki.json"))
        return ((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["trust"] as? [String: Any])?["tuf"] as? [String: Any]
    }

    /// The trust mechanisms `sync --json` names for `id` (its `trust` evidence).
    static func mechanisms(_ result: ChildResult, _ id: String) -> [String] {
        (result.summaryModel(id)?["trust"] as? [[String: Any]])?.compactMap { $0["mechanism"] as? String } ?? []
    }

    @Test("the quick start syncs signed models (trust.tuf pins the registry's root), then the registry it names, started as it says, serves its closing try: command (in a new shell: the key is in a file)")
    func closingTryWorks() async throws {
        let package = try Self.package()
        defer { package.remove() }
        // Two fixed ports (API N, storage N+1), below the ephemeral range: a pair from there
        // could be taken by any connection or port-0 server before the registry binds it.
        let port = try LoopbackPort.freePairBelowEphemeralRange()
        let first = try await Self.quickstart(package, port: port)
        try #require(first.status == 0, "\(first.all)")
        #expect(first.stdout.contains("==> manashiki-sync verify"), "\(first.stdout)")
        let trust = try #require(try Self.tufTrust(package), "the manifest pins the registry's root")
        #expect(trust["metadataURL"] as? String == "http://127.0.0.1:\(port)/tuf/metadata/")
        #expect((trust["root"] as? [String: Any])?["file"] as? String == "tuf/root.json")
        #expect(first.stdout.contains("whisper-tiny-en: installed 1.0.0 (") && first.stdout.contains("), signed (tuf)"), "\(first.stdout)")
        #expect(first.stdout.contains("Signed metadata (trust.tuf) from http://127.0.0.1:\(port)/tuf/metadata/"), "\(first.stdout)")
        let serve = try #require(Self.command(after: "(it stays up until Ctrl-C):", in: first.stdout), "\(first.stdout)")
        #expect(Array(serve.dropFirst()) == ["serve", "--port", String(port), "--tuf", "quickstart/tuf"], "\(serve)")
        let tryCommand = try #require(Self.command(after: "then try:", in: first.stdout), "\(first.stdout)")
        #expect(Array(tryCommand.dropFirst()) == ["--manifest", "quickstart/manashiki.json", "sync", "--json"])
        let key = package.url.appendingPathComponent("quickstart/api-key")
        let mode = try FileManager.default.attributesOfItem(atPath: key.path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the key file is \(String(mode ?? 0, radix: 8))")

        let registry = try Self.start(serve, in: package)
        defer { registry.send(SIGTERM) }
        // 120 s: under load (.ci/stress) a cold start of the registry took over 30 s, and the next
        // request then reached whatever else had the port.
        try #require(await registry.waitForOutput(timeout: 120) { $0.contains("MANASHIKI_REGISTRY_READY") }, "\(registry.out.text)")
        let tried = await (try Self.start(tryCommand, in: package)).finish(timeout: 60)
        #expect(tried.status == 0, "\(tried.all)")
        #expect(tried.summary()["type"] as? String == "summary", "\(tried.stdout)")
        // The same keys (quickstart/tuf): the restarted registry's newer metadata verifies
        // against the root the store trusts.
        #expect(Self.mechanisms(tried, "whisper-tiny-en") == ["tuf"], "\(tried.stdout)")

        // With that registry still up, the quick start uses it, leaves it running, and says so.
        let second = try await Self.quickstart(package, port: port)
        #expect(second.status == 0, "\(second.all)")
        #expect(second.stdout.contains("==> using the development registry already serving the demo catalog on 127.0.0.1:\(port) (left running)"))
        // Its root, as it serves it, is pinned (the quick start's own quickstart/tuf was removed).
        #expect((try Self.tufTrust(package)?["root"] as? [String: Any])?["file"] as? String == "registry-root.json")
        #expect(second.stdout.contains("), signed (tuf)"), "\(second.stdout)")
        let again = try #require(Self.command(after: "is still running. Try:", in: second.stdout), "\(second.stdout)")
        let retried = await (try Self.start(again, in: package)).finish(timeout: 60)
        #expect(retried.status == 0 && Self.mechanisms(retried, "whisper-tiny-en") == ["tuf"], "\(retried.all)")
        #expect(registry.isRunning)
    }
}
#endif

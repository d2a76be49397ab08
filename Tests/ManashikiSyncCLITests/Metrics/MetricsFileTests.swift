#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import Testing

/// `--metrics-file` and `metrics.file` with the built binary against the development registry,
/// every file checked by Prometheus' own `promtool check metrics`.
@Suite("metrics file (built binary, promtool)")
struct MetricsFileTests {
    /// The samples of a metrics file by series, without the `store` label:
    /// `manashiki_sync_last_run_models{status="installed"}` → 2.
    static func samples(_ text: String) -> [String: Double] {
        var out: [String: Double] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
            var series = String(line[..<space])
            series = series.replacingOccurrences(of: #"store="(?:[^"\\]|\\.)*",?"#, with: "", options: .regularExpression)
            series = series.replacingOccurrences(of: "{}", with: "")
            out[series] = value
        }
        return out
    }

    /// Runs `promtool check metrics` on `file`.
    static func promtool(_ file: URL) async throws -> ExternalTool.Result {
        try await ExternalTool.run("promtool", ["check", "metrics"], input: file)
    }

    /// The metrics file's text, after checking that promtool accepts it and no temporary file is left.
    static func checkedText(_ file: URL, sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let text = try String(contentsOf: file, encoding: .utf8)
        let lint = try await promtool(file)
        #expect(lint.succeeded, "promtool: \(lint.output)", sourceLocation: sourceLocation)
        let siblings = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        #expect(siblings == [file.lastPathComponent], "left next to the metrics file: \(siblings)", sourceLocation: sourceLocation)
        return text
    }

    @Test("a sync writes every metric; a partial failure and a manifest error keep the last success", .requires(.promtool))
    func successThenFailures() async throws {
        let fixture = try Fixture(models: ["alpha"])
        let file = fixture.directory.appendingPathComponent("textfile/manashiki.prom")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)

        let first = try await fixture.run(["sync", "--quiet", "--metrics-file", "textfile/manashiki.prom"])
        #expect(first.status == 0, "\(first.all)")
        let ok = Self.samples(try await Self.checkedText(file))
        #expect(ok["manashiki_sync_last_run_exit_code"] == 0)
        #expect(ok[#"manashiki_sync_last_run_outcome{outcome="changed"}"#] == 1)
        #expect(ok[#"manashiki_sync_last_run_outcome{outcome="failed"}"#] == 0)
        #expect(ok[#"manashiki_sync_last_run_models{status="installed"}"#] == 1)
        #expect(ok[#"manashiki_sync_last_run_models{status="failed"}"#] == 0)
        #expect(ok["manashiki_sync_last_run_downloaded_bytes"] == Double(64 << 10))
        #expect(ok["manashiki_sync_last_run_reused_bytes"] == 0)
        #expect(ok["manashiki_sync_store_size_bytes"] == Double(64 << 10))
        #expect(ok["manashiki_sync_models_installed"] == 1)
        let success = try #require(ok["manashiki_sync_last_success_timestamp_seconds"])
        #expect(success == ok["manashiki_sync_last_run_timestamp_seconds"])
        #expect(abs(success - Date().timeIntervalSince1970) < 600)
        #expect(try #require(ok["manashiki_sync_last_run_duration_seconds"]) >= 0)

        // beta arrives corrupted: partial failure (exit 3), alpha kept. The metrics file is
        // gone (a cleaned textfile directory): the last success comes from the last-run record.
        try FileManager.default.removeItem(at: file)
        try fixture.writeManifest(models: ["alpha", "beta"])
        fixture.registry.setFault(.corruptByte(), modelId: "beta", endpoint: .storage)
        let partial = try await fixture.run(["sync", "--quiet", "--metrics-file", "textfile/manashiki.prom"])
        #expect(partial.status == 3, "\(partial.all)")
        let p = Self.samples(try await Self.checkedText(file))
        #expect(p["manashiki_sync_last_run_exit_code"] == 3)
        #expect(p[#"manashiki_sync_last_run_outcome{outcome="partial-failure"}"#] == 1)
        #expect(p[#"manashiki_sync_last_run_outcome{outcome="changed"}"#] == 0)
        #expect(p[#"manashiki_sync_last_run_models{status="unchanged"}"#] == 1)
        #expect(p[#"manashiki_sync_last_run_models{status="failed"}"#] == 1)
        #expect(p["manashiki_sync_last_run_downloaded_bytes"] == 0)
        #expect(p["manashiki_sync_last_run_reused_bytes"] == Double(64 << 10))
        #expect(p["manashiki_sync_models_installed"] == 1)
        #expect(p["manashiki_sync_last_success_timestamp_seconds"] == success)
        #expect(try #require(p["manashiki_sync_last_run_timestamp_seconds"]) >= success)

        // A broken manifest: nothing runs, the file still says so, the success is still there.
        try Data(#"{"schemaVersion": 1, "models": [{"id": "alpha", "verison": "1"}]}"#.utf8).write(to: fixture.manifestURL)
        let broken = try await fixture.run(["sync", "--quiet", "--metrics-file", "textfile/manashiki.prom"])
        #expect(broken.status == 2)
        let b = Self.samples(try await Self.checkedText(file))
        #expect(b["manashiki_sync_last_run_exit_code"] == 2)
        #expect(b[#"manashiki_sync_last_run_outcome{outcome="manifest-error"}"#] == 1)
        #expect(b["manashiki_sync_last_success_timestamp_seconds"] == success)
        #expect(b["manashiki_sync_store_size_bytes"] == nil) // the store is unknown without a manifest
    }

    /// The `store` label of every sample line of a metrics file.
    static func storeLabels(_ text: String) -> Set<String> {
        Set(text.split(separator: "\n").filter { !$0.hasPrefix("#") }.compactMap { line in
            line.firstMatch(of: #/\{store="((?:[^"\\]|\\.)*)"/#).map { String($0.output.1) }
        })
    }

    @Test("a manifest that cannot be read keeps the previous file's store label, so the series (and alerts on them) stay the same", .requires(.promtool))
    func manifestErrorKeepsStoreLabel() async throws {
        let fixture = try Fixture(models: ["alpha"])
        let file = fixture.directory.appendingPathComponent("textfile/manashiki.prom")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        // A store path that needs escaping in a label.
        try fixture.writeManifest(models: ["alpha"])
        let manifest = try String(contentsOf: fixture.manifestURL, encoding: .utf8)
        try manifest.replacingOccurrences(of: #""directory": "models""#, with: #""directory": "mo\\dels \"x\"""#)
            .write(to: fixture.manifestURL, atomically: true, encoding: .utf8)
        let ok = try await fixture.run(["sync", "--quiet", "--metrics-file", "textfile/manashiki.prom"])
        #expect(ok.status == 0, "\(ok.all)")
        let before = Self.storeLabels(try await Self.checkedText(file))
        #expect(before.count == 1 && before.first?.hasSuffix(#"mo\\dels \"x\""#) == true, "\(before)")

        try Data("{ not json".utf8).write(to: fixture.manifestURL)
        let broken = try await fixture.run(["sync", "--quiet", "--metrics-file", "textfile/manashiki.prom"])
        #expect(broken.status == 2)
        let text = try await Self.checkedText(file)
        #expect(Self.storeLabels(text) == before, "\(text)")
        let b = Self.samples(text)
        #expect(b[#"manashiki_sync_last_run_outcome{outcome="manifest-error"}"#] == 1)
        #expect(try #require(b["manashiki_sync_last_success_timestamp_seconds"]) > 0)
    }

    @Test("the manifest's metrics.file is used; a failed first run says 0 for the last success; odd store paths are escaped", .requires(.promtool))
    func manifestSetting() async throws {
        let fixture = try Fixture()
        // A store path with a quote and a backslash: label values must be escaped.
        let text = """
        {"schemaVersion": 1,
         "registry": {"baseURL": "\(fixture.registry.apiBaseURL.absoluteString)"},
         "store": {"directory": "we\\"ird\\\\store"},
         "device": {"platform": "linux"},
         "policies": {"checkCompatibility": false, "retry": {"maxAttempts": 1}},
         "metrics": {"file": "metrics/sync.prom"},
         "models": [{"id": "beta"}]}
        """
        try Data(text.utf8).write(to: fixture.manifestURL)
        fixture.registry.setFault(.corruptByte(), modelId: "beta", endpoint: .storage)
        try FileManager.default.createDirectory(at: fixture.directory.appendingPathComponent("metrics"), withIntermediateDirectories: true)
        let run = try await fixture.run(["sync", "--quiet"])
        #expect(run.status == 1, "\(run.all)")
        let file = fixture.directory.appendingPathComponent("metrics/sync.prom")
        let body = try await Self.checkedText(file)
        #expect(body.contains(#"store="\#(fixture.directory.path)/we\"ird\\store""#))
        let s = Self.samples(body)
        #expect(s["manashiki_sync_last_success_timestamp_seconds"] == 0)
        #expect(s["manashiki_sync_last_run_exit_code"] == 1)
        #expect(s[#"manashiki_sync_last_run_models{status="failed"}"#] == 1)
        #expect(s["manashiki_sync_models_installed"] == 0)
    }

    @Test("promtool rejects a broken copy of our file (the check can fail)", .requires(.promtool))
    func promtoolCanFail() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["sync", "--quiet", "--metrics-file", "sync.prom"]).status == 0)
        let good = try String(contentsOf: fixture.directory.appendingPathComponent("sync.prom"), encoding: .utf8)
        let broken: [String: String] = [
            "a gauge named like a counter": good.replacingOccurrences(of: "last_run_downloaded_bytes", with: "last_run_downloaded_bytes_total"),
            "a sample without HELP": good.replacingOccurrences(of: "# HELP manashiki_sync_last_run_exit_code", with: "# nothing"),
            "an unescaped quote": good.replacingOccurrences(of: #"outcome="changed""#, with: #"outcome="chan"ged""#),
        ]
        for (what, text) in broken {
            let url = fixture.directory.appendingPathComponent("broken.prom")
            try Data(text.utf8).write(to: url)
            let lint = try await Self.promtool(url)
            #expect(!lint.succeeded, "promtool accepted \(what)")
        }
    }

    @Test("--metrics-file is a sync option and refuses --dry-run")
    func usage() async throws {
        let fixture = try Fixture()
        #expect(try await fixture.run(["plan", "--metrics-file", "x.prom"]).status == 2)
        let dry = try await fixture.run(["sync", "--dry-run", "--metrics-file", "x.prom"])
        #expect(dry.status == 2)
        #expect(dry.stderr.contains("--metrics-file"))
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.appendingPathComponent("x.prom").path))
    }
}
#endif

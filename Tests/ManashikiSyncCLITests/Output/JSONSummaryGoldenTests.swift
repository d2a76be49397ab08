import Foundation
import Testing
@testable import ManashikiSync
@testable import ManashikiSyncCLI

/// The `--json` summary line of every command, byte for byte (keys, their order, types and
/// nulls): the stable schema scripts parse. Run in process with a fixed clock; only the
/// scratch directory, the registry's port, the wall-clock `time` and measured seconds are
/// replaced before comparing.
@Suite("--json summary lines, byte for byte")
struct JSONSummaryGoldenTests {
    /// Runs `arguments` in the fixture's directory and returns the normalized last stdout line.
    static func summaryLine(_ fixture: Fixture, _ arguments: [String], environment: [String: String]? = nil) async -> String {
        await lines(fixture, arguments, environment: environment).last ?? ""
    }

    /// Runs `arguments` in the fixture's directory and returns every normalized stdout line.
    static func lines(_ fixture: Fixture, _ arguments: [String], environment: [String: String]? = nil) async -> [String] {
        let out = BufferOutput(), err = BufferOutput()
        let console = Console(out: out, err: err, environment: environment ?? fixture.environment, currentDirectory: fixture.directory,
                              now: { 1000 }, date: { Date(timeIntervalSince1970: 1_800_000_000) })
        _ = await CommandLineTool(console: console, handlesSignals: false).run(arguments)
        return out.lines.map { normalize($0, fixture) }
    }

    static func normalize(_ line: String, _ fixture: Fixture) -> String {
        var text = line
        for path in [fixture.directory.resolvingSymlinksInPath().path, fixture.directory.path] {
            text = text.replacingOccurrences(of: path, with: "$DIR")
        }
        text = text.replacingOccurrences(of: fixture.registry.apiBaseURL.absoluteString, with: "$REGISTRY")
        for key in ["ageSeconds", "durationSeconds", "freeBytes"] {
            text = text.replacingOccurrences(of: "\"\(key)\":[0-9][0-9.e-]*", with: "\"\(key)\":0", options: .regularExpression)
        }
        return text
    }

    /// Each line equals its golden copy.
    static func expectGolden(_ lines: [(String, String)], sourceLocation: SourceLocation = #_sourceLocation) {
        for (name, line) in lines {
            #expect(line == golden[name], "\(name) summary changed:\n\(line)", sourceLocation: sourceLocation)
        }
    }

    @Test("sync, plan, status, verify, export and lock summaries")
    func commands() async throws {
        let fixture = try Fixture()
        let sync = await Self.summaryLine(fixture, ["sync", "--json"])
        let plan = await Self.summaryLine(fixture, ["plan", "--json"])
        let status = await Self.summaryLine(fixture, ["status", "--json"], environment: [:])
        let verify = await Self.summaryLine(fixture, ["verify", "--json"], environment: [:])
        let export = await Self.summaryLine(fixture, ["export", "bundle", "--json"], environment: [:])
        let lock = await Self.summaryLine(fixture, ["lock", "--json"])
        Self.expectGolden([("sync", sync), ("plan", plan), ("status", status), ("verify", verify), ("export", export), ("lock", lock)])
    }

    @Test("problems: a never-synced status, a blocked model, a damaged file found and repaired, lock drift")
    func problems() async throws {
        let fixture = try Fixture(extraModelEntries: [#"{"id": "nope"}"#])
        let status = await Self.summaryLine(fixture, ["status", "--json"], environment: [:])
        let sync = await Self.summaryLine(fixture, ["sync", "--json"])
        try Data("damaged".utf8).write(to: fixture.store.appendingPathComponent("beta.bin"))
        let verify = await Self.summaryLine(fixture, ["verify", "--json"], environment: [:])
        let repair = await Self.summaryLine(fixture, ["verify", "--repair", "--json"])
        try fixture.writeManifest(models: ["alpha", "beta"])
        _ = await Self.summaryLine(fixture, ["lock", "--json"])
        try fixture.registry.publish(modelId: "beta", version: "2.2.0", artifact: .generated(size: 100 << 10, seed: 999))
        let check = await Self.summaryLine(fixture, ["lock", "--check", "--json"])
        Self.expectGolden([("status0", status), ("syncBlocked", sync), ("verifyDamaged", verify), ("repair", repair), ("lockCheck", check)])
    }

    @Test("usage, manifest and key errors")
    func errors() async throws {
        let fixture = try Fixture()
        let usage = await Self.summaryLine(fixture, ["sync", "--bogus", "--json"])
        let key = await Self.summaryLine(fixture, ["sync", "--json"], environment: [:])
        try Data(#"{"schemaVersion": 1, "models": [{"id": "A"}], "store": {"concurrency": 0}}"#.utf8).write(to: fixture.manifestURL)
        let manifest = await Self.summaryLine(fixture, ["plan", "--json"])
        Self.expectGolden([("usage", usage), ("key", key), ("manifest", manifest)])
    }

    @Test("a run's summary with a run failure, bytes by source, a resumed model and the sources it skipped")
    func richRun() {
        let out = BufferOutput()
        let writer = JSONEventWriter(console: RendererFixtures.console(out, BufferOutput(), clock: RendererFixtures.Clock()))
        var summary = RendererFixtures.summary()
        summary.report.runFailure = SyncFailure(kind: .retryable, message: "The registry had an internal problem (HTTP 503).", attempts: 3)
        summary.report.bytesBySource = ["registry": 3 << 20, "mirror https://m.example": 1 << 20]
        summary.report.bytesReused = 512
        summary.report.warnings = ["a warning\nover two lines"]
        summary.report.cleanedLeftovers = ["alpha.bin.partial"]
        summary.report.results[0].resumedFrom = 512
        summary.report.results[0].source = "registry"
        summary.report.results[0].sourcesSkipped = ["mirror https://m.example: 404 (it does not hold the blob)"]
        summary.report.results.append(ModelResult(modelId: "gamma", planned: RendererFixtures.download, status: .notRun("cancelled")))
        writer.finish(summary)
        var dry = RendererFixtures.summary(dryRun: true)
        dry.report.plan?.refusal = nil
        writer.finish(dry)
        #expect(out.lines.count == 2)
        Self.expectGolden([("richRun", out.lines.first ?? ""), ("richPlan", out.lines.last ?? "")])
    }

    @Test("a CA bundle that is gone when the run starts: exit 1 with the summary")
    func caBundleGone() async throws {
        let fixture = try Fixture()
        var manifest = try Manifest.decode(Data(contentsOf: fixture.manifestURL))
        manifest.baseDirectory = fixture.directory
        manifest.registry.caBundle = "gone.pem"
        let out = BufferOutput()
        let console = Console(out: out, err: BufferOutput(), environment: fixture.environment, currentDirectory: fixture.directory,
                              now: { 1000 }, date: { Date(timeIntervalSince1970: 1_800_000_000) })
        var global = GlobalOptions()
        global.json = true
        let run = ReconcileRun(context: CommandContext(console: console, global: global), manifest: manifest,
                               key: LoadedKey(value: Fixture.key, source: "test"), command: "sync", dryRun: false)
        let (code, report) = await run.perform()
        #expect(code == .failure)
        #expect(report == nil)
        Self.expectGolden([("ca", Self.normalize(out.lines.last ?? "", fixture))])
    }

    @Test("the event lines of a sync, a plan and a verify (each distinct line); the writer's retry, resume and leftover events")
    func events() async throws {
        let fixture = try Fixture()
        let sync = await Self.lines(fixture, ["sync", "--json"])
        let plan = await Self.lines(fixture, ["plan", "--json"])
        let verify = await Self.lines(fixture, ["verify", "--json"], environment: [:])
        let out = BufferOutput()
        let writer = JSONEventWriter(console: RendererFixtures.console(out, BufferOutput(), clock: RendererFixtures.Clock()))
        writer.handle(.cleanedLeftovers(["partial/alpha.partial"]))
        writer.handle(.modelStarted(modelId: "alpha", action: .replace(from: "0.9.0", to: RendererFixtures.target, because: .upgrade)))
        writer.handle(.resumed(modelId: "alpha", bytesKept: 1024, totalBytes: 4 << 20))
        writer.handle(.progress(modelId: "alpha", bytesWritten: 2048, totalBytes: nil))
        writer.handle(.retrying(modelId: "alpha", attempt: 2, delay: .milliseconds(1250), reason: "HTTP 503\nagain"))
        writer.handle(.retrying(modelId: nil, attempt: 1, delay: .seconds(2), reason: "catalog"))
        let written = out.lines.map { $0.replacingOccurrences(of: "\"time\":\"[^\"]*\"", with: "\"time\":\"T\"", options: .regularExpression) }
        for (name, lines) in [("syncEvents", sync), ("planEvents", plan), ("verifyEvents", verify), ("writerEvents", written)] {
            // Distinct lines: under load the SDK may report a model's last progress twice (the
            // writer writes the last one always), which changes how many lines, not what they are.
            #expect(Set(lines).sorted() == Self.goldenEvents[name], "\(name) changed:\n\(lines.joined(separator: "\n"))")
        }
    }
}

import Foundation
import Testing
import ManashikiCore
@testable import ManashikiSyncCLI

@Suite("CommandLineParser")
struct CommandLineParserTests {
    func parse(_ args: [String]) throws -> Command { try CommandLineParser.parse(args) }
    func usageError(_ args: [String]) -> UsageError? {
        do { _ = try CommandLineParser.parse(args); return nil } catch { return error }
    }

    @Test("options that take no value refuse one: --json=false must not mean --json", arguments: [
        "--json=false", "--dry-run=false", "--repair=no", "--quiet=1", "--verbose=0", "--no-prune=false", "--help=x",
    ])
    func switchesTakeNoValue(flag: String) {
        let error = usageError(["sync", flag])
        #expect(error?.message.contains("takes no value") == true)
    }

    @Test("each command parses with default global options")
    func commands() throws {
        #expect(try parse(["plan"]) == .plan(GlobalOptions()))
        #expect(try parse(["sync"]) == .sync(GlobalOptions(), SyncOptions()))
        #expect(try parse(["verify"]) == .verify(GlobalOptions(), VerifyOptions()))
        #expect(try parse(["status"]) == .status(GlobalOptions()))
    }

    @Test("global options go before or after the command, with a space or an equals sign")
    func globals() throws {
        var expected = GlobalOptions()
        expected.manifestPath = "m.json"
        expected.manifestGiven = true
        expected.storeDirectory = "/srv/models"
        expected.json = true
        expected.verbosity = .verbose
        expected.progress = .never
        expected.apiKeyFile = "/etc/key"
        expected.lockTimeout = .seconds(5)
        let a = try parse(["--manifest", "m.json", "plan", "--store=/srv/models", "--json", "-v", "--progress", "never",
                           "--api-key-file", "/etc/key", "--lock-timeout", "5s"])
        #expect(a == .plan(expected))
    }

    @Test("--max-rate and --metrics-file are sync options; a bad rate says what to type")
    func rateAndMetrics() throws {
        var o = SyncOptions()
        o.maxRate = 20 << 20
        o.metricsFile = "/var/lib/prometheus/node-exporter/manashiki.prom"
        #expect(try parse(["sync", "--max-rate", "20M", "--metrics-file=/var/lib/prometheus/node-exporter/manashiki.prom"]) == .sync(GlobalOptions(), o))
        #expect(usageError(["sync", "--max-rate", "fast"])?.message.contains("such as 20M") == true)
        #expect(usageError(["plan", "--max-rate", "20M"])?.message.contains("option of `sync`") == true)
        #expect(usageError(["status", "--metrics-file", "x.prom"])?.message.contains("option of `sync`") == true)
    }

    @Test("sync options parse, including loop mode")
    func syncOptions() throws {
        var o = SyncOptions()
        o.dryRun = true
        o.concurrency = 3
        o.maxDeletes = 0
        o.noPrune = true
        #expect(try parse(["sync", "--dry-run", "--concurrency", "3", "--max-delete=0", "--no-prune"]) == .sync(GlobalOptions(), o))
        var loop = SyncOptions()
        loop.every = .seconds(6 * 3600)
        loop.jitter = .seconds(600)
        #expect(try parse(["sync", "--every", "6h", "--jitter", "10m"]) == .sync(GlobalOptions(), loop))
    }

    @Test("help and version, anywhere")
    func helpAndVersion() throws {
        #expect(try parse(["--help"]) == .help(topic: nil))
        #expect(try parse(["sync", "--help"]) == .help(topic: .sync))
        #expect(try parse(["-h", "verify"]) == .help(topic: .verify))
        #expect(try parse(["help", "status"]) == .help(topic: .status))
        #expect(try parse(["--version"]) == .version)
        for topic in Command.CommandName.allCases { #expect(HelpText.text(for: topic).contains("USAGE")) }
    }

    @Test("the help of every command that accepts an option lists it: one table drives both")
    func helpCoversTable() {
        for option in CommandLineParser.options.options {
            let long = option.names.first { $0.hasPrefix("--") } ?? option.names[0]
            let topics: [Command.CommandName?] = option.commands.isEmpty ? [nil] : option.commands.map(Command.CommandName.init(rawValue:))
            #expect(!topics.contains { $0 == nil } || option.commands.isEmpty, "\(long) names an unknown command")
            for topic in topics { #expect(HelpText.text(for: topic).contains(long), "\(long) missing from the help of \(topic?.rawValue ?? "manashiki-sync")") }
        }
    }

    @Test("--api-key and look-alikes are refused without echoing the value")
    func refusesKey() {
        let key = "mk_live_acme_abcdefghijklmnopqrstuvwxyz"
        for args in [["sync", "--api-key", key], ["--api-key=\(key)", "plan"], ["sync", "--key", key], ["sync", "--token=x"]] {
            let error = usageError(args)
            #expect(error != nil)
            #expect(error?.message.contains("ps") == true)
            #expect(error?.message.contains("MANASHIKI_API_KEY") == true)
            #expect(error?.message.contains(key) == false)
        }
    }

    @Test("a key passed where a path or a command is expected is not echoed")
    func keyInTheWrongPlace() {
        let key = "mk_pub_acme_abcdefghijklmnopqrstuvwxyz"
        for args in [["sync", "--api-key-file", key], [key], ["sync", key], ["sync", "--concurrency", key]] {
            let error = usageError(args)
            #expect(error != nil, "\(args)")
            #expect(error?.message.contains(key) == false, "\(args)")
        }
    }

    @Test("usage errors say what is wrong", arguments: [
        ([], "missing command"),
        (["launch"], "unknown command"),
        (["sync", "--frob"], "unknown option"),
        (["sync", "--concurrency"], "needs a value"),
        (["sync", "--concurrency", "0"], "at least 1"),
        (["sync", "--concurrency", "x"], "whole number"),
        (["plan", "--dry-run"], "option of `sync`"),
        (["sync", "--repair"], "option of `verify`"),
        (["sync", "--jitter", "1m"], "only applies with --every"),
        (["sync", "--every", "soon"], "duration"),
        (["sync", "--every", "6h", "--dry-run"], "cannot be combined"),
        (["plan", "-q", "-v"], "cannot be combined"),
        (["plan", "--progress", "sometimes"], "auto, always or never"),
        (["plan", "status"], "unexpected argument"),
    ] as [([String], String)])
    func errors(args: [String], fragment: String) {
        let error = usageError(args)
        #expect(error?.message.contains(fragment) == true, "\(args): \(error?.message ?? "parsed")")
    }
}

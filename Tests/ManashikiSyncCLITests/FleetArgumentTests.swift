import Foundation
import Testing
import ManashikiCore
@testable import ManashikiSyncCLI

@Suite("CommandLineParser: export, lock and source options")
struct FleetArgumentTests {
    func usageError(_ args: [String]) -> UsageError? {
        do { _ = try CommandLineParser.parse(args); return nil } catch { return error }
    }

    @Test("export, lock and the source options parse")
    func parses() throws {
        var export = ExportOptions()
        export.directory = "out"
        export.selection = .lock
        var global = GlobalOptions()
        global.lockFile = "x.lock.json"
        #expect(try CommandLineParser.parse(["export", "out", "--select", "lock", "--lock-file", "x.lock.json"]) == .export(global, export))
        var check = LockOptions()
        check.check = true
        #expect(try CommandLineParser.parse(["lock", "--check"]) == .lock(GlobalOptions(), check))
        var sources = GlobalOptions()
        sources.locked = true
        sources.offline = true
        sources.from = ["/media/usb", "https://cache.example/b"]
        #expect(try CommandLineParser.parse(["sync", "--locked", "--offline", "--from", "/media/usb", "--from=https://cache.example/b"])
                == .sync(sources, SyncOptions()))
        #expect(try CommandLineParser.parse(["plan", "--offline"]) == .plan({ var g = GlobalOptions(); g.offline = true; return g }()))
    }

    @Test("options used with the wrong command are usage errors naming the right one", arguments: [
        (["status", "--offline"], "--offline is an option of `sync` and `plan`"),
        (["verify", "--from", "x"], "--from is an option of `sync` and `plan`"),
        (["sync", "--check"], "--check is an option of `lock`"),
        (["lock", "--select", "store"], "--select is an option of `export`"),
        (["status", "--lock-file", "x"], "--lock-file is an option of"),
        (["sync", "--offline", "--every", "1h"], "--offline cannot be combined with --every"),
        (["sync", "--from"], "--from needs a value"),
        (["export"], "export needs the bundle directory"),
    ])
    func wrongCommand(args: [String], message: String) {
        #expect(usageError(args)?.message.contains(message) == true, "\(usageError(args)?.message ?? "parsed")")
    }
}

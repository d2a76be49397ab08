import Foundation
import ManashikiCore
import Testing
@testable import manashiki_bench

@Suite("manashiki-bench's command line")
struct BenchOptionsTests {
    static let suites = ["download", "fleet", "rate"]

    func parse(_ arguments: [String]) throws(UsageError) -> BenchOptions {
        try BenchOptions.parse(arguments, suites: Self.suites)
    }

    @Test("no arguments: every suite, 5 rounds, 1024 MiB, $TMPDIR/manashiki-bench, no load wait, no profile")
    func defaults() throws {
        let o = try parse([])
        #expect(o.suites == Self.suites)
        #expect(o.rounds == 5)
        #expect(o.sizeMiB == 1024)
        #expect(o.workdir.lastPathComponent == "manashiki-bench")
        #expect(o.maxLoad == nil)
        #expect(o.profile == nil)
        #expect(!o.wantsHelp)
    }

    @Test("every option, as `--name value` and `--name=value`, between suite names")
    func everyOption() throws {
        let o = try parse(["rate", "--rounds", "7", "--size-mib=64", "download", "--workdir", "/tmp/w",
                           "--max-load", "1.5", "--profile=/tmp/prof"])
        #expect(o.suites == ["rate", "download"])
        #expect(o.rounds == 7)
        #expect(o.sizeMiB == 64)
        #expect(o.workdir.path == "/tmp/w")
        #expect(o.maxLoad == 1.5)
        #expect(o.profile?.path == "/tmp/prof")
    }

    @Test("`all` selects every suite")
    func all() throws {
        #expect(try parse(["all", "--rounds", "2"]).suites == Self.suites)
    }

    @Test("-h or --help anywhere asks for help, even where a value was due")
    func help() throws {
        #expect(try parse(["-h"]).wantsHelp)
        #expect(try parse(["download", "--rounds", "--help"]).wantsHelp)
    }

    @Test("bad command lines are refused with what is wrong", arguments: [
        (["nosuch"], "unknown suite nosuch; the suites are all, download, fleet, rate"),
        (["--bogus", "1"], "unknown option --bogus"),
        (["--rounds"], "--rounds needs a value"),
        (["--rounds", "0"], "--rounds needs a whole number of at least 1, not \"0\""),
        (["--rounds", "many"], "--rounds needs a whole number of at least 1, not \"many\""),
        (["--size-mib", "-3"], "--size-mib needs a whole number of at least 1, not \"-3\""),
        (["--max-load", "high"], "--max-load needs a load average such as 2 or 1.5, not \"high\""),
        (["--workdir", "--rounds", "3"], "--workdir needs a value"),
    ])
    func refused(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try parse(arguments) }
    }

    @Test("the usage lists every suite and every option from the table")
    func usage() {
        let text = BenchOptions.usage(suites: [("download", "one big file"), ("rate", "--max-rate")])
        #expect(text.hasPrefix("USAGE: manashiki-bench [all | SUITE…] [--rounds N] [--size-mib N] [--workdir DIR] [--max-load X] [--profile DIR]"))
        #expect(text.contains("\n  download   one big file\n"))
        #expect(text.contains("\n  rate       --max-rate\n"))
        for option in BenchOptions.table.options {
            #expect(text.contains("\n  " + option.label(shortColumn: false) + " "), "help lacks \(option.names)")
        }
        #expect(text.contains("  --workdir DIR scratch space on disk (default $TMPDIR/manashiki-bench); the tmpfs\n"
                              + "                side is a tmpfs the bench mounts under it as root, else /dev/shm\n"))
    }
}

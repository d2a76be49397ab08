import Foundation
import ManashikiCore

/// The bench's command line: which suites to run and the options they share. Parsing and the
/// usage text both read one `OptionTable` (the same small parser as `manashiki-sync` and
/// `manashiki-registry`). Portable (no suite runs here), so it is tested on every platform.
struct BenchOptions: Sendable, Equatable {
    /// The suites to run, by name, in the order given; `all` puts every suite here. Empty: every suite.
    var suites: [String] = []
    /// Runs of every tool; medians of these (`--rounds`).
    var rounds = 5
    /// Size of the single download in MiB (`--size-mib`).
    var sizeMiB = 1024
    /// Scratch space on disk (`--workdir`).
    var workdir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("manashiki-bench")
    /// Wait before each round for a 1-minute load average at most this (`--max-load`).
    var maxLoad: Double?
    /// Where `perf record` profiles of the SDK's runs go (`--profile`).
    var profile: URL?
    /// Where `strace -f -c` summaries of the SDK's runs go (`--strace`).
    var strace: URL?
    /// `-h` / `--help`.
    var wantsHelp = false

    typealias Option = CommandLineOption<BenchOptions>

    /// Every option of `manashiki-bench`, in help order.
    static let table = OptionTable<BenchOptions>([
        Option(["--rounds"], "N", help: "runs of every tool; medians of these, with min and max (default 5)") { o, v in
            o.rounds = try positiveInteger("--rounds", v)
        },
        Option(["--size-mib"], "N", help: "size of the `download` suite's artifact (default 1024; `network` uses 256)") { o, v in
            o.sizeMiB = try positiveInteger("--size-mib", v)
        },
        Option(["--workdir"], "DIR", help: """
            scratch space on disk (default $TMPDIR/manashiki-bench); the tmpfs
            side is a tmpfs the bench mounts under it as root, else /dev/shm
            """) { o, v in o.workdir = URL(fileURLWithPath: v) },
        Option(["--max-load"], "X", help: "before each round, wait (up to 2 min) for a 1-minute load average ≤ X") { o, v in
            guard let x = Double(v), x.isFinite, x >= 0 else {
                throw UsageError("--max-load needs a load average such as 2 or 1.5, not \"\(v)\"")
            }
            o.maxLoad = x
        },
        Option(["--profile"], "DIR", help: """
            run the SDK's peers under `perf record -g` (linux-perf), profiles in DIR
            (timings of those runs include perf's overhead)
            """) { o, v in o.profile = URL(fileURLWithPath: v) },
        Option(["--strace"], "DIR", help: """
            run the SDK's peers under `strace -f -c` instead (system calls and
            threads started, one summary per run in DIR; slower runs)
            """) { o, v in o.strace = URL(fileURLWithPath: v) },
        Option(["-h", "--help"], help: "this help") { o, _ in o.wantsHelp = true },
    ])

    /// A whole number of at least 1.
    static func positiveInteger(_ name: String, _ text: String) throws(UsageError) -> Int {
        guard let n = Int(text), n >= 1 else { throw UsageError("\(name) needs a whole number of at least 1, not \"\(text)\"") }
        return n
    }

    /// Parses `arguments` (without the program name); `suites` are the names a suite argument may take.
    /// `-h`/`--help` anywhere wins over everything else, so `--rounds --help` still shows help.
    static func parse(_ arguments: [String], suites: [String]) throws(UsageError) -> BenchOptions {
        var options = BenchOptions()
        if arguments.contains("--help") || arguments.contains("-h") { options.wantsHelp = true; return options }
        try table.parse(arguments, into: &options,
            unknown: { UsageError("unknown option \($0)") },
            positional: { word, options, _ throws(UsageError) in
                if word == "all" { options.suites = suites; return }
                guard suites.contains(word) else {
                    throw UsageError("unknown suite \(word); the suites are all, \(suites.joined(separator: ", "))")
                }
                options.suites.append(word)
            })
        if options.suites.isEmpty { options.suites = suites }
        return options
    }

    /// The usage text: the suites (`name`, `summary`) and the table's options.
    static func usage(suites: [(name: String, summary: String)]) -> String {
        let list = suites.map { "  " + $0.name.padding(toLength: 10, withPad: " ", startingAt: 0) + " " + $0.summary }
        let names = table.options.map { $0.names.last! }
        let synopsis = table.options.filter { !$0.isSwitch }.map { "[\($0.names.last!) \($0.placeholder!)]" }
        return """
        USAGE: manashiki-bench [all | SUITE…] \(synopsis.joined(separator: " "))

          all        every suite below (the default)
        \(list.joined(separator: "\n"))

        \(table.help(names, labelWidth: 14))

        Every tool runs as a child process; wall time and CPU (user+sys, children included)
        come from wait4, peak RSS from GNU time's %M (/usr/bin/time; wait4's figure without it). Tools alternate run by run, each after its output is removed
        and the page cache flushed (sync + drop_caches when permitted, else sync).
        Needs curl, python3, openssl, sha256sum, nginx (apt-get install -y nginx-light) and
        rclone (apt-get install -y rclone; its figures are skipped without it); `network` also
        aria2 and iproute2 (apt-get install -y aria2 iproute2), hf_transfer (pip install
        hf-transfer) and root for its capped link (a network namespace with tc tbf; skipped,
        saying so, otherwise). About 20 GB of disk under --workdir and 4 GB of RAM for the tmpfs.

        Run it in release mode: swift run -c release manashiki-bench
        Progress goes to stderr; the report (Markdown tables) to stdout.
        """
    }
}

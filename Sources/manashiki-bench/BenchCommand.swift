#if os(Linux)
import Foundation

/// Parses the command line and runs the suites (or a child mode, `_name`).
enum BenchCommand {
    static var usage: String {
        let suites = BenchSuites.all.map { "  " + $0.name.padding(toLength: 10, withPad: " ", startingAt: 0) + " " + $0.summary }
        return """
        USAGE: manashiki-bench [all | SUITE…] [--rounds N] [--size-mib N] [--workdir DIR] [--max-load X]

          all        every suite below (the default)
        \(suites.joined(separator: "\n"))

          --rounds N    runs of every tool; medians of these, with min and max (default 5)
          --size-mib N  size of the single download (default 1024)
          --workdir DIR scratch space on disk (default $TMPDIR/manashiki-bench); the tmpfs
                        side is a tmpfs the bench mounts under it as root, else /dev/shm
          --max-load X  before each round, wait (up to 2 min) for a 1-minute load average ≤ X
          --profile DIR run the SDK's peers under `perf record -g` (linux-perf), profiles in DIR
                        (timings of those runs include perf's overhead)

        Every tool runs as a child process; wall time, CPU (user+sys, children included) and
        peak RSS come from wait4. Tools alternate run by run, each after its output is removed
        and the page cache flushed (sync + drop_caches when permitted, else sync).
        Needs curl, python3, openssl, sha256sum, nginx (apt-get install -y nginx-light) and
        rclone (apt-get install -y rclone; its figures are skipped without it). About 20 GB of
        disk under --workdir and 4 GB of RAM for the tmpfs.

        Run it in release mode: swift run -c release manashiki-bench
        Progress goes to stderr; the report (Markdown tables) to stdout.
        """
    }

    static func main(_ arguments: [String]) async {
        var args = arguments
        do {
            if let mode = args.first, mode.hasPrefix("_") {
                try await ChildModes.run(mode, Array(args.dropFirst()))
                return
            }
            if args.contains("--help") || args.contains("-h") { print(usage); return }
            var rounds = 5, sizeMiB = 1024, maxLoad: Double?, profile: URL?
            var workdir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("manashiki-bench")
            var chosen: [BenchSuite] = []
            while let word = args.first {
                args.removeFirst()
                if word == "all" { chosen = BenchSuites.all; continue }
                if let suite = BenchSuites.all.first(where: { $0.name == word }) { chosen.append(suite); continue }
                guard word.hasPrefix("--") else { throw BenchError("unknown suite \(word)\n\(usage)") }
                guard let value = args.first else { throw BenchError("\(word) needs a value\n\(usage)") }
                args.removeFirst()
                switch word {
                case "--rounds": rounds = max(1, Int(value) ?? rounds)
                case "--size-mib": sizeMiB = max(1, Int(value) ?? sizeMiB)
                case "--workdir": workdir = URL(fileURLWithPath: value)
                case "--max-load": maxLoad = Double(value)
                case "--profile": profile = URL(fileURLWithPath: value)
                default: throw BenchError("unknown option \(word)\n\(usage)")
                }
            }
            if chosen.isEmpty { chosen = BenchSuites.all }
            try FileManager.default.createDirectory(at: workdir, withIntermediateDirectories: true)
            let context = BenchContext(rounds: rounds, sizeMiB: sizeMiB, disk: workdir, maxLoad: maxLoad)
            if let profile {
                try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
                context.profileDirectory = profile
            }
            defer { context.tearDown() }
            printHeader(context)
            for suite in chosen { try suite.run(context) }
            let loads = context.loads
            if !loads.isEmpty {
                print(String(format: "\nLoad average (1 min) at the start of the rounds: median %.2f, min %.2f, max %.2f.", median(loads), loads.min() ?? 0, loads.max() ?? 0))
            }
        } catch {
            FileHandle.standardError.write(Data("manashiki-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    static func printHeader(_ context: BenchContext) {
        let host = ProcessInfo.processInfo
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?
            .split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "?"
        let fs = (try? Child.run(["stat", "-f", "-c", "%T", context.disk.path]))?.output.trimmingCharacters(in: .whitespacesAndNewlines) ?? "?"
        print("## manashiki-bench — \(ISO8601DateFormatter().string(from: Date()))")
        print("""

        Machine: \(host.processorCount) cores (\(cpu)), \(host.physicalMemory >> 30) GiB, \(host.operatingSystemVersionString).
        Disk side: \(context.disk.path) (\(fs)). Between runs: \(context.flush.description).
        Medians of \(context.rounds) runs per tool, tools alternating run by run; ratios are of medians, below 1 means we are faster.
        Load average when starting: \(String(format: "%.2f", Machine.loadAverage())).
        """)
        fflush(nil)
    }
}
#endif

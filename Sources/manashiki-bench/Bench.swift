#if os(Linux)
import Foundation

/// `manashiki-bench`: side-by-side benchmarks against the tools people would use instead.
/// Figures are ratios from one run on this machine; absolute times are noise here.
@main
struct Bench {
    static let usage = """
    USAGE: manashiki-bench [all|download|fleet|big|noop|verify|planner] [--size-mib N] [--rounds N] [--workdir DIR]

      all        everything below (the default)
      download   one large artifact: SDK download+verify vs curl, curl+sha256sum, Python;
                 peak memory; SHA-256 throughput vs openssl (default: 1024 MiB)
      fleet      fresh sync of 16 × 64 MiB at concurrency 4 vs `xargs -P4 curl` + `sha256sum -c`,
                 `rclone copy --transfers 4` and a Python pool of 4; peak memory
      big        peak memory of a 4 GiB single-artifact sync
      noop       no-op sync of 2,000 installed models: time, API requests, bytes re-hashed
      verify     `verify` of 8 GiB vs `sha256sum` and `openssl dgst -sha256`
      planner    plan time and state-file load time at 10,000 entries

    Needs curl, python3, openssl, nginx (apt-get install -y nginx-light) and rclone
    (apt-get install -y rclone; its figure is skipped without it). Uses about 20 GB of disk
    under --workdir (default: $TMPDIR/manashiki-bench).

    Run it in release mode: swift run -c release manashiki-bench
    Progress goes to stderr; the report (Markdown tables) to stdout.
    """

    static func main() async {
        var args = Array(CommandLine.arguments.dropFirst())
        do {
            if let mode = args.first, mode.hasPrefix("_") {
                let rest = Array(args.dropFirst())
                switch mode {
                case "_download": try await ChildModes.download(rest)
                case "_hash": try ChildModes.hash(rest)
                case "_sync": try await ChildModes.sync(rest)
                case "_verify": try await ChildModes.verify(rest)
                default: throw BenchError("unknown mode \(mode)")
                }
                return
            }
            if args.contains("--help") || args.contains("-h") { print(usage); return }
            var sizeMiB = 1024, rounds = 3
            var workdir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("manashiki-bench")
            let suites = ["all", "download", "fleet", "big", "noop", "verify", "planner"]
            var suite = "all"
            if let first = args.first, suites.contains(first) { suite = first; args.removeFirst() }
            while let flag = args.first {
                args.removeFirst()
                guard let value = args.first else { throw BenchError("\(flag) needs a value\n\(usage)") }
                args.removeFirst()
                switch flag {
                case "--size-mib": sizeMiB = Int(value) ?? sizeMiB
                case "--rounds": rounds = max(1, Int(value) ?? rounds)
                case "--workdir": workdir = URL(fileURLWithPath: value)
                default: throw BenchError("unknown option \(flag)\n\(usage)")
                }
            }
            try FileManager.default.createDirectory(at: workdir, withIntermediateDirectories: true)
            let host = ProcessInfo.processInfo
            print("## manashiki-bench — \(ISO8601DateFormatter().string(from: Date()))")
            print("\nMachine: \(host.processorCount) cores, \(host.physicalMemory >> 30) GiB, \(host.operatingSystemVersionString). Medians of \(rounds) rounds; ratios below 1 mean we are faster.")
            let scale = ScaleBench(rounds: rounds, workdir: workdir)
            let run: [(String, String, () throws -> [Figure])] = [
                ("download", "Download of one \(sizeMiB) MiB artifact from the loopback development registry",
                 { try DownloadBench(sizeMiB: sizeMiB, rounds: rounds, workdir: workdir).run() }),
                ("fleet", "Fresh sync of \(scale.fleetCount) artifacts of \(scale.fleetMiB) MiB, concurrency 4 (all tools from one nginx)", scale.fleetSync),
                ("big", "Memory of a \(scale.bigGiB) GiB single-artifact sync", scale.bigSync),
                ("noop", "No-op sync of \(scale.noopModels) installed models", scale.noopSync),
                ("verify", "`verify` of \(scale.verifyGiB) GiB of installed models", scale.verify),
                ("planner", "Planner and state file at \(scale.plannerEntries) entries", scale.planner),
            ]
            for (name, title, body) in run where suite == "all" || suite == name {
                printTable(title, try body())
            }
        } catch {
            FileHandle.standardError.write(Data("manashiki-bench: \(error)\n".utf8))
            exit(1)
        }
    }
}
#else
/// The benchmarks compare against Linux tools (nginx, sha256sum, /proc): Linux only.
@main
struct Bench {
    static func main() {
        print("manashiki-bench runs on Linux (it measures against nginx, curl, sha256sum and rclone there).")
    }
}
#endif

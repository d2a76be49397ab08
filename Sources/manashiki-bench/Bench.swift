import Foundation

/// `manashiki-bench`: side-by-side benchmarks against the tools people would use instead.
/// Figures are ratios from one run on this machine; absolute times are noise here.
@main
struct Bench {
    static let usage = """
    USAGE: manashiki-bench [download] [--size-mib N] [--rounds N] [--workdir DIR]

      download   one large artifact: SDK download+verify vs curl, curl+sha256sum, Python;
                 peak memory; SHA-256 throughput vs openssl (default: 1024 MiB, 3 rounds)

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
                default: throw BenchError("unknown mode \(mode)")
                }
                return
            }
            if args.contains("--help") || args.contains("-h") { print(usage); return }
            var sizeMiB = 1024, rounds = 3
            var workdir = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("manashiki-bench")
            if args.first == "download" { args.removeFirst() }
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
            print("\nMachine: \(host.processorCount) cores, \(host.physicalMemory >> 30) GiB, \(host.operatingSystemVersionString). Medians of \(rounds) rounds.")
            let figures = try DownloadBench(sizeMiB: sizeMiB, rounds: rounds, workdir: workdir).run()
            printTable("Download of one \(sizeMiB) MiB artifact from the loopback development registry", figures)
        } catch {
            FileHandle.standardError.write(Data("manashiki-bench: \(error)\n".utf8))
            exit(1)
        }
    }
}

import Foundation

/// `manashiki-bench`: side-by-side benchmarks against the tools people would use instead.
/// Figures are ratios from one run on this machine; absolute times are noise here.
/// The one `@main` of the target; suites are subcommands (`BenchSuites`).
@main
struct Bench {
    static func main() async {
        #if os(Linux)
        await BenchCommand.main(Array(CommandLine.arguments.dropFirst()))
        #else
        // The benchmarks compare against Linux tools (nginx, sha256sum, /proc, drop_caches).
        print("manashiki-bench runs on Linux (it measures against nginx, curl, Python, sha256sum and rclone there).")
        #endif
    }
}

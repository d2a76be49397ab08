#if os(Linux)
import Foundation
import ManashikiCore

/// What every suite shares: the options, where files go, how runs are separated, and the load
/// average recorded at each round.
final class BenchContext {
    /// Runs of every tool (medians of these).
    let rounds: Int
    /// Size of the single-download artifact.
    let sizeMiB: Int
    /// Scratch space on disk (the file system of `--workdir`).
    let disk: URL
    /// How the page cache is reset before each run.
    let flush: CacheFlush
    /// Wait for a load average at most this before each round (`--max-load`).
    let maxLoad: Double?
    /// Where `perf record` profiles of the SDK's runs go (`--profile DIR`), if anywhere.
    var profileDirectory: URL?
    var profileCount = 0
    /// Where `strace -f -c` summaries of the SDK's runs go (`--strace DIR`), if anywhere.
    var straceDirectory: URL?
    /// The load average at the start of every round so far.
    var loads: [Double] = []
    /// The bench's own executable, for the SDK's child modes.
    let me = CommandLine.arguments[0]

    private var scratch: TmpfsScratch?

    init(rounds: Int, sizeMiB: Int, disk: URL, maxLoad: Double?) {
        self.rounds = rounds
        self.sizeMiB = sizeMiB
        self.disk = disk
        self.maxLoad = maxLoad
        flush = CacheFlush.probe()
    }

    /// Scratch space on tmpfs, mounted on first use.
    func tmpfs() throws -> TmpfsScratch {
        if let scratch { return scratch }
        let s = try TmpfsScratch(under: disk)
        scratch = s
        return s
    }

    func tearDown() { scratch?.tearDown() }

    /// The options that made this context, for a child bench that runs part of a suite
    /// elsewhere (the `network` suite's capped link, inside its namespace).
    var childArguments: [String] {
        var args = ["--rounds", String(rounds), "--size-mib", String(sizeMiB), "--workdir", disk.path]
        if let maxLoad { args += ["--max-load", String(maxLoad)] }
        if let profileDirectory { args += ["--profile", profileDirectory.path] }
        if let straceDirectory { args += ["--strace", straceDirectory.path] }
        return args
    }

    /// The context a child bench given `childArguments` works in.
    static func child(_ arguments: [String]) throws -> BenchContext {
        let o: BenchOptions
        do throws(UsageError) { o = try BenchOptions.parse(arguments, suites: []) } catch { throw BenchError(error.message) }
        let context = BenchContext(rounds: o.rounds, sizeMiB: o.sizeMiB, disk: o.workdir, maxLoad: o.maxLoad)
        context.profileDirectory = o.profile
        context.straceDirectory = o.strace
        return context
    }

    /// An empty directory `name` under `base`.
    func freshDirectory(_ base: URL, _ name: String) throws -> URL {
        let url = base.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// One suite of the bench, run as `manashiki-bench <name>`; it prints its own tables.
struct BenchSuite: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (BenchContext) throws -> Void
}

/// Every suite, in the order `all` runs them. To add one, add one line here.
enum BenchSuites {
    static let all: [BenchSuite] = [
        DownloadBench.suite,
        FleetBench.suite,
        NetworkBench.suite,
        ScaleBench.bigSuite,
        ScaleBench.noopSuite,
        ScaleBench.verifySuite,
        ScaleBench.plannerSuite,
        RateBench.suite, HerdBench.suite,
        S3Bench.suite,
    ]
}
#endif

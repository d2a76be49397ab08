#if os(Linux)
import Foundation

/// One tool in a side-by-side comparison: a command run as a child process, how to reset its
/// output before each run (not timed), and how to check that it did the job.
struct Peer {
    var name: String
    var argv: [String]
    var environment: [String: String] = [:]
    /// Run under `perf record` when the bench is given `--profile DIR` (the SDK's peers).
    var profiled = false
    /// Runs before every run, untimed (remove the previous output).
    var reset: () throws -> Void = {}
    /// Checks a run and returns extra figures it reports (such as `growthKiB`); throws if the
    /// run failed.
    var check: (Child.Result) throws -> [String: Double] = { r in
        guard r.status == 0 else { throw BenchError("the command failed (exit \(r.status))") }
        return [:]
    }

    /// A shell pipeline as one peer (its commands' CPU counts: the shell waits for them).
    static func shell(_ name: String, _ script: String, reset: @escaping () throws -> Void = {},
                      check: ((Child.Result) throws -> [String: Double])? = nil) -> Peer {
        var peer = Peer(name: name, argv: ["/bin/sh", "-c", script], reset: reset)
        if let check { peer.check = check }
        return peer
    }
}

/// What one peer measured over the rounds.
struct Samples {
    var name: String
    var wall: [Double] = []
    var cpu: [Double] = []
    var rssMiB: [Double] = []
    /// CPU seconds other processes used during each run, per second of wall time (cores).
    var others: [Double] = []
    var extra: [String: [Double]] = [:]

    func extraMax(_ key: String) -> Double { extra[key]?.max() ?? 0 }
}

/// Runs peers alternately, run by run (A B C A B C …), each from the same state: its output
/// removed, the page cache flushed (or at least synced), the load average recorded.
struct Alternation {
    let context: BenchContext
    /// Keep clean cached pages between runs (only `sync`), for suites whose input every tool
    /// should read from the page cache (hashing installed files), warmed once before.
    var keepCache = false

    func run(_ peers: [Peer]) throws -> [Samples] {
        let rssFile = context.disk.appendingPathComponent("peak-rss.txt").path
        var samples = peers.map { Samples(name: $0.name) }
        for round in 1...context.rounds {
            Machine.waitForLoad(below: context.maxLoad)
            let load = Machine.loadAverage()
            context.loads.append(load)
            log(String(format: "round %d/%d (load %.2f): %@", round, context.rounds, load, peers.map(\.name).joined(separator: ", ")))
            for (i, peer) in peers.enumerated() {
                try peer.reset()
                if keepCache { sync() } else { context.flush.run() }
                let busy = Machine.busyCPUSeconds()
                let (argv, trace) = traced(peer)
                var r = try Child.run(PeakRSS.wrap(argv, into: rssFile), environment: peer.environment)
                if let trace { log("\(peer.name): \(StraceSummary.line(trace))") }
                r.maxRSSKiB = PeakRSS.read(rssFile) ?? r.maxRSSKiB
                let others = max(0, Machine.busyCPUSeconds() - busy - r.cpuSeconds) / max(r.seconds, 1e-3)
                let extra: [String: Double]
                do { extra = try peer.check(r) } catch { throw BenchError("\(peer.name): \(error)\n\(r.output)") }
                samples[i].wall.append(r.seconds)
                samples[i].cpu.append(r.cpuSeconds)
                samples[i].rssMiB.append(Double(r.maxRSSKiB) / 1024)
                samples[i].others.append(others)
                for (k, v) in extra { samples[i].extra[k, default: []].append(v) }
            }
        }
        return samples
    }

    /// `peer`'s command, under `strace -f -c` (`--strace`, with the summary's path) or `perf
    /// record` (`--profile`) when it is profiled.
    private func traced(_ peer: Peer) -> ([String], trace: String?) {
        guard peer.profiled, let dir = context.straceDirectory ?? context.profileDirectory else { return (peer.argv, nil) }
        let stem = dir.appendingPathComponent("\(peer.name.filter { $0.isLetter || $0.isNumber })-\(context.profileCount)").path
        context.profileCount += 1
        if context.straceDirectory != nil { return (["strace", "-f", "-c", "-o", stem + ".strace", "--"] + peer.argv, stem + ".strace") }
        log("profiling into \(stem).perf.data")
        return (["perf", "record", "-q", "-g", "-o", stem + ".perf.data", "--"] + peer.argv, nil)
    }
}

/// The figures of an `strace -c` summary that show CPU per byte: reads, writes, futex waits and
/// wake-ups, and threads started (`clone`/`clone3`).
enum StraceSummary {
    static func calls(in file: String) -> [String: Int] {
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return [:] }
        var calls: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ")
            // % time, seconds, usecs/call, calls, [errors,] syscall
            guard fields.count >= 5, let name = fields.last, let count = Int(fields[3]), Double(fields[0]) != nil else { continue }
            calls[String(name)] = count
        }
        return calls
    }

    static func line(_ file: String) -> String {
        let c = calls(in: file)
        let threads = (c["clone3"] ?? 0) + (c["clone"] ?? 0)
        return ["read", "pread64", "write", "pwrite64", "pwritev", "futex", "sync_file_range"].map { "\($0) \(c[$0] ?? 0)" }.joined(separator: ", ")
            + ", threads started \(threads) (\(file))"
    }
}

/// Peak RSS of a child process tree, from GNU time (`%M`): `wait4`'s `ru_maxrss` of a child
/// spawned by this process starts at this process's own RSS (the child shares or copies its
/// memory until `exec`), so the bench's own size would be counted for every tool. GNU time is
/// tiny, and reports the `ru_maxrss` of the tree it forks. Without it, `wait4`'s figure is used.
enum PeakRSS {
    static let time = "/usr/bin/time"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: time) }

    static func wrap(_ argv: [String], into file: String) -> [String] {
        try? FileManager.default.removeItem(atPath: file)
        return isAvailable ? [time, "-f", "%M", "-o", file, "--"] + argv : argv
    }

    /// KiB, or nil without GNU time.
    static func read(_ file: String) -> Int? {
        guard isAvailable, let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.last
    }
}

/// Prints the raw figures of every peer: wall, CPU and peak RSS as median (min–max).
func printPeers(_ title: String, _ samples: [Samples]) {
    func span(_ xs: [Double], _ format: String) -> String {
        String(format: format, median(xs)) + " (" + String(format: format, xs.min() ?? 0) + "–" + String(format: format, xs.max() ?? 0) + ")"
    }
    print("\n#### \(title)\n")
    print("| tool | wall s, median (min–max) | CPU s user+sys | peak RSS MiB | others' CPU (cores) |")
    print("|---|---|---|---|---|")
    for s in samples {
        print("| \(s.name) | \(span(s.wall, "%.2f")) | \(span(s.cpu, "%.2f")) | \(span(s.rssMiB, "%.0f")) | \(String(format: "%.2f", median(s.others))) |")
    }
    fflush(nil)
}
#endif

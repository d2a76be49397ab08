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
                var argv = peer.argv
                if peer.profiled, let dir = context.profileDirectory {
                    let name = "\(peer.name.filter { $0.isLetter || $0.isNumber })-\(context.profileCount).perf.data"
                    context.profileCount += 1
                    argv = ["perf", "record", "-q", "-g", "-o", dir.appendingPathComponent(name).path, "--"] + argv
                    log("profiling into \(dir.appendingPathComponent(name).path)")
                }
                var r = try Child.run(PeakRSS.wrap(argv, into: rssFile), environment: peer.environment)
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

#if os(Linux)
import Foundation
import ManashikiCore

/// Parses the command line and runs the suites (or a child mode, `_name`).
enum BenchCommand {
    /// The usage text (`BenchOptions.table` and the suites).
    static var usage: String { BenchOptions.usage(suites: BenchSuites.all.map { ($0.name, $0.summary) }) }

    static func main(_ arguments: [String]) async {
        do {
            if let mode = arguments.first, mode.hasPrefix("_") {
                try await ChildModes.run(mode, Array(arguments.dropFirst()))
                return
            }
            let options: BenchOptions
            do throws(UsageError) {
                options = try BenchOptions.parse(arguments, suites: BenchSuites.all.map(\.name))
            } catch {
                throw BenchError("\(error.message) (`manashiki-bench --help` lists the suites and options)")
            }
            if options.wantsHelp { print(usage); return }
            let chosen = options.suites.compactMap { name in BenchSuites.all.first { $0.name == name } }
            try FileManager.default.createDirectory(at: options.workdir, withIntermediateDirectories: true)
            let context = BenchContext(rounds: options.rounds, sizeMiB: options.sizeMiB, disk: options.workdir, maxLoad: options.maxLoad)
            if let profile = options.profile {
                try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
                context.profileDirectory = profile
            }
            if let strace = options.strace {
                try FileManager.default.createDirectory(at: strace, withIntermediateDirectories: true)
                context.straceDirectory = strace
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

#if os(Linux) // GNU time (Debian package `time`, installed by scripts/test; `.requires(.gnuTime)`)
import Foundation
import ManashikiTestSupport
import Testing

/// A run of the built `manashiki-sync` under `/usr/bin/time`: its result, its peak resident
/// memory, and whether a signal ended it. The hostile-input tests bound RSS by what the promise
/// allows (a limit). A deadline is proven without timing the run (a loaded machine stretches
/// any wall time): the hostile peer would go on for minutes or days, yet the run ends by itself,
/// unsignalled, within the harness's timeout, naming the limit that cut it.
struct MeasuredRun {
    var result: ChildResult
    /// Peak resident set size, KiB (`%M`).
    var maxRSSKiB: Int
    /// The signal that ended it, if one did ("Command terminated by signal N").
    var signal: Int32?
    /// What the run changed beside the store (`TreeSnapshot.difference`): empty, always.
    var changedBeside: [String] = []

    var maxRSSMiB: Double { Double(maxRSSKiB) / 1024 }

    static let time = URL(fileURLWithPath: "/usr/bin/time")

    /// Runs `arguments` in `directory` with `environment` (tests using it say
    /// `.requires(.gnuTime)`); records an issue when the report cannot be read.
    static func run(_ arguments: [String], environment: [String: String], in directory: URL, timeout: Double = 120,
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> MeasuredRun {
        // Outside `directory`: the run's surroundings are compared before and after.
        let report = FileManager.default.temporaryDirectory.appendingPathComponent("manashiki-time-\(UUID().uuidString.prefix(8)).txt")
        defer { try? FileManager.default.removeItem(at: report) }
        let result = try await CLIProcess.run(["-f", "%M", "-o", report.path, CLIProcess.binary.path] + arguments,
                                              executable: time, environment: environment, in: directory, timeout: timeout)
        let lines = (try? String(contentsOf: report, encoding: .utf8))?.split(separator: "\n").map(String.init) ?? []
        let signal = lines.first { $0.hasPrefix("Command terminated by signal ") }.flatMap { Int32($0.split(separator: " ").last ?? "") }
        let figures = lines.last?.split(separator: " ") ?? []
        let measured = MeasuredRun(result: result, maxRSSKiB: figures.first.flatMap { Int($0) } ?? 0, signal: signal)
        #expect(measured.maxRSSKiB > 0, "no report from /usr/bin/time: \(lines)", sourceLocation: sourceLocation)
        return measured
    }
}

extension SyncWorkspace {
    /// `MeasuredRun.run` in this workspace, checking what every hostile input must leave true:
    /// the run ended by an exit status, never a signal, and nothing beside the store changed
    /// (the workspace compared before and after, the store left out: a bundle, the manifest,
    /// anything a symbolic link could lead to).
    func measured(_ arguments: [String] = ["sync"], environment: [String: String]? = nil, timeout: Double = 120,
                  sourceLocation: SourceLocation = #_sourceLocation) async throws -> MeasuredRun {
        let storeName = store.deletingLastPathComponent().standardizedFileURL == directory.standardizedFileURL ? [store.lastPathComponent] : []
        let before = TreeSnapshot.capture(directory, excluding: Set(storeName))
        var run = try await MeasuredRun.run(arguments, environment: environment ?? self.environment, in: directory, timeout: timeout,
                                            sourceLocation: sourceLocation)
        run.changedBeside = TreeSnapshot.capture(directory, excluding: Set(storeName)).difference(from: before)
        #expect(run.changedBeside.isEmpty, "changed beside the store: \(run.changedBeside)", sourceLocation: sourceLocation)
        #expect(run.signal == nil && !run.result.signalled, "ended by a signal: \(run.result.all)", sourceLocation: sourceLocation)
        return run
    }
}
#endif

#if os(Linux)
import Foundation
import ManashikiProcess

/// Runs a command as a child process (through the package's one spawner, `ChildProcess`) and
/// measures it from `wait4`'s resource usage: wall time, CPU seconds (user + system) and peak
/// RSS, each including the child's own waited-for children (a shell pipeline's commands count).
struct Child {
    struct Result {
        var seconds: Double
        /// User + system CPU of the child and its waited-for descendants.
        var cpuSeconds: Double
        var maxRSSKiB: Int
        var status: Int32
        var output: String
    }

    /// Runs `argv` (argv[0] looked up in PATH), capturing stdout; stderr passes through.
    static func run(_ argv: [String], environment: [String: String] = [:]) throws -> Result {
        guard let name = argv.first, let executable = ChildProcess.executable(named: name) else {
            throw BenchError("could not start \(argv.first ?? "an empty command"): not found in PATH")
        }
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let process = ChildProcess()
        process.executableURL = executable
        process.arguments = Array(argv.dropFirst())
        process.environment = env
        // The child (and a daemon it starts, like nginx) gets only 0, 1 and 2, so reading the
        // pipe to its end returns once the child has exited.
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.standardError
        let start = DispatchTime.now()
        do { try process.run() } catch {
            throw BenchError("could not start \(name): \(error)")
        }
        let output = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        let usage = process.resourceUsage
        return Result(seconds: seconds, cpuSeconds: usage?.cpuSeconds ?? 0, maxRSSKiB: usage?.maxResidentKiB ?? 0,
                      status: status, output: String(decoding: output, as: UTF8.self))
    }

    /// Runs a shell pipeline with `/bin/sh -c`.
    static func shell(_ script: String) throws -> Result {
        try run(["/bin/sh", "-c", script])
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ d: String) { description = d }
}

/// Median of repeated measurements (0 for none).
func median(_ xs: [Double]) -> Double {
    guard !xs.isEmpty else { return 0 }
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// The resident set size of this process now, in KiB (Linux), or 0.
func currentRSSKiB() -> Int { procStatus("VmRSS:") }

/// The peak resident set size of this process's image, in KiB (Linux), or 0. Unlike
/// `getrusage`'s `ru_maxrss`, it does not start at the parent's size.
func peakRSSKiB() -> Int { procStatus("VmHWM:") }

private func procStatus(_ key: String) -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix(key) {
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
    return 0
}
#endif

#if os(Linux)
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a command as a child process and measures it from `wait4`'s resource usage: wall
/// time, CPU seconds (user + system) and peak RSS, each including the child's own waited-for
/// children (a shell pipeline's commands count).
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
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        let args = argv.map { strdup($0) } + [nil]
        defer { (envp + args).forEach { free($0) } }

        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { throw BenchError("pipe failed") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeFDs[0])
        // Without this the child (and a daemon it starts, like nginx) would keep a second copy
        // of the pipe's write end, and reading to the end would never return.
        posix_spawn_file_actions_addclose(&actions, pipeFDs[1])

        var pid: pid_t = 0
        let start = DispatchTime.now()
        let rc = posix_spawnp(&pid, argv[0], &actions, nil, args, envp)
        close(pipeFDs[1])
        guard rc == 0 else {
            close(pipeFDs[0])
            throw BenchError("could not start \(argv[0]): \(String(cString: strerror(rc)))")
        }
        var output = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(pipeFDs[0], &buffer, buffer.count)
            if n <= 0 { break }
            output.append(contentsOf: buffer[0..<n])
        }
        close(pipeFDs[0])
        var status: Int32 = 0
        var usage = rusage()
        _ = wait4(pid, &status, 0, &usage)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        return Result(seconds: seconds, cpuSeconds: cpu, maxRSSKiB: usage.ru_maxrss, status: exit, output: String(decoding: output, as: UTF8.self))
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

#if os(Linux)
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs a command as a child process and measures it: wall time, and the child's peak RSS
/// from `wait4`'s resource usage.
struct Child {
    struct Result {
        var seconds: Double
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
        return Result(seconds: seconds, maxRSSKiB: usage.ru_maxrss, status: exit, output: String(decoding: output, as: UTF8.self))
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

/// Median of repeated measurements.
func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

/// The resident set size of this process now, in KiB (Linux), or 0.
func currentRSSKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
    return 0
}
#endif

import Foundation
import ManashikiProcess
import ManashikiTestSupport
import Manashiki
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one run of the built `manashiki-sync` printed and returned.
struct RunResult: Sendable {
    var status: Int32
    /// True when the process died from a signal (`status` is then the signal number).
    var signalled: Bool
    var stdout: String
    var stderr: String
    var all: String { stdout + stderr }
    var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }

    /// Every stdout line parsed as JSON (nil entries for lines that are not objects).
    var jsonLines: [[String: Any]?] {
        stdoutLines.map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }
    var summary: [String: Any]? { jsonLines.last.flatMap { $0 }.flatMap { $0["type"] as? String == "summary" ? $0 : nil } }
    /// The summary's per-model entry.
    func summaryModel(_ id: String) -> [String: Any]? {
        (summary?["models"] as? [[String: Any]])?.first { $0["modelId"] as? String == id }
    }
}


/// Runs the built `manashiki-sync` (or another program) as a child process.
enum CLIProcess {
    /// The `manashiki-sync` binary next to the test bundle.
    static let binary: URL = {
        var candidates: [URL] = []
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.deletingLastPathComponent()
        for _ in 0..<4 {
            candidates.append(dir.appendingPathComponent("manashiki-sync"))
            dir = dir.deletingLastPathComponent()
        }
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("manashiki-sync"))
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("manashiki-sync"))
        candidates.append(URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent(".build/debug/manashiki-sync"))
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) } ?? candidates[0]
    }()

    /// A running child with live output (see `RunningChild`).
    final class Running: @unchecked Sendable {
        let child: RunningChild
        init(_ child: RunningChild) { self.child = child }

        var process: ChildProcess { child.process }
        var out: OutputPipe { child.out }
        var err: OutputPipe { child.err }
        var pid: Int32 { process.processIdentifier }
        var isRunning: Bool { process.isRunning }

        /// Waits until `condition()` holds (checked every 10 ms, at most `timeout` seconds).
        func wait(timeout: Double = 20, until condition: () -> Bool) async -> Bool {
            await child.wait(timeout: timeout, until: condition)
        }

        func send(_ signal: Int32) { child.send(signal) }

        /// Waits for the exit (SIGKILL after `timeout` seconds, recorded as an issue).
        func finish(timeout: Double = 30) async -> RunResult {
            let r = await child.finish(timeout: timeout)
            return RunResult(status: r.status, signalled: r.signalled, stdout: r.stdout, stderr: r.stderr)
        }
    }

    /// Starts `executable` (default: manashiki-sync) with exactly `environment` plus PATH, HOME and LANG.
    static func start(_ arguments: [String], executable: URL? = nil, environment: [String: String] = [:], in directory: URL) throws -> Running {
        Running(try RunningChild.start(executable ?? binary, arguments, environment: environment, in: directory))
    }

    static func run(_ arguments: [String], executable: URL? = nil, environment: [String: String] = [:], in directory: URL, timeout: Double = 60) async throws -> RunResult {
        try await start(arguments, executable: executable, environment: environment, in: directory).finish(timeout: timeout)
    }

    /// Runs a helper program synchronously (mount, umount, dd…) and returns its status and output.
    @discardableResult
    static func tool(_ path: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return (-1, "\(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

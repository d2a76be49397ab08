#if os(Linux) || os(macOS)
import Foundation
import ManashikiProcess
import Manashiki
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started by a test, with its output collected live: the one running-process
/// wrapper of the test targets (`CLIProcess` starts the built `manashiki-sync` with it; nginx,
/// curl, mount and the external tools go through it too). It spawns with `ChildProcess`
/// (`posix_spawn` on Linux, never `Foundation.Process`) and reads with `OutputPipe` (never
/// `FileHandle.readabilityHandler`). Linux and macOS only, like `ChildProcess`.
package final class RunningChild: @unchecked Sendable {
    /// The process.
    package let process = ChildProcess()
    /// Its standard output.
    package let out = OutputPipe()
    /// Its standard error.
    package let err = OutputPipe()

    /// Starts `executable` in `directory` with exactly `environment` plus `PATH`, `HOME` (the
    /// directory) and `LANG`; standard input is /dev/null.
    package static func start(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                              path: String = "/usr/bin:/bin:/usr/sbin:/sbin", in directory: URL) throws -> RunningChild {
        let child = RunningChild()
        child.process.executableURL = executable
        child.process.arguments = arguments
        child.process.currentDirectoryURL = directory
        var env = ["PATH": path, "HOME": directory.path, "LANG": "C.UTF-8"]
        env.merge(environment) { _, new in new }
        child.process.environment = env
        child.process.standardOutput = child.out.pipe
        child.process.standardError = child.err.pipe
        child.process.standardInput = FileHandle.nullDevice
        try child.process.run()
        return child
    }

    /// The child's pid.
    package var pid: Int32 { process.processIdentifier }
    /// Whether it has not exited yet.
    package var isRunning: Bool { process.isRunning }

    /// Waits until `condition()` holds or the child exits (checked every 10 ms, at most
    /// `timeout` seconds).
    package func wait(timeout: Double = 20, until condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            if !process.isRunning { return condition() }
            try? await Task.sleep(for: .milliseconds(10))
        }
        // A waiter starved past its deadline (a loaded machine, a busy cooperative pool) must
        // not report "never happened" for what did happen meanwhile.
        return condition()
    }

    /// Waits until `condition(stdout so far)` holds (as `wait(timeout:until:)`).
    package func waitForOutput(timeout: Double = 20, _ condition: (String) -> Bool) async -> Bool {
        await wait(timeout: timeout) { condition(out.text) }
    }

    /// Sends `signal`.
    package func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Sends `signal` as soon as `condition(stdout so far)` holds (see `send(_:when:timeout:)`).
    package func send(_ signal: Int32, whenOutput condition: @escaping @Sendable (String) -> Bool, timeout: Double = 30) async -> Bool {
        await send(signal, when: { [out] in condition(out.text) }, timeout: timeout)
    }

    /// Sends `signal` as soon as `condition()` holds, watching from a thread of its own, so a
    /// busy cooperative pool (a loaded machine, blocking tests alongside) cannot delay the
    /// signal past the moment the test means. Returns whether the condition held (and the
    /// signal went out) while the child was running, within `timeout` seconds.
    /// With `delay`, the signal goes out that many seconds after the condition first held (if
    /// the child still runs): "a random point once the transfer is under way".
    package func send(_ signal: Int32, when condition: @escaping @Sendable () -> Bool, delay: Double = 0, timeout: Double = 30) async -> Bool {
        await withCheckedContinuation { continuation in
            let watcher = Thread { [self] in
                let deadline = Date().addingTimeInterval(timeout)
                var met = false
                while Date() < deadline && process.isRunning {
                    if condition() { met = true; break }
                    usleep(10_000)
                }
                if met && delay > 0 {
                    usleep(useconds_t(delay * 1_000_000))
                    met = process.isRunning
                }
                if met { send(signal) }
                continuation.resume(returning: met)
            }
            watcher.name = "manashiki.test.signal"
            watcher.start()
        }
    }

    /// Waits for the exit (SIGKILL after `timeout` seconds, recorded as an issue).
    package func finish(timeout: Double = 30) async -> ChildResult {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(10)) }
        if process.isRunning {
            Issue.record("\(process.executableURL?.lastPathComponent ?? "child") did not exit in \(timeout)s; killed")
            kill(process.processIdentifier, SIGKILL)
        }
        return waitForExit()
    }

    /// Blocks the calling thread until the child exits and its output is read (for synchronous
    /// callers: capability probes, curl, short tools). Async tests use `finish(timeout:)`.
    package func waitForExit() -> ChildResult {
        process.waitUntilExit()
        out.drain()
        err.drain()
        return ChildResult(status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
                           stdout: out.text, stderr: err.text)
    }

    /// Runs `executable` to the end, blocking (see `start` for the environment); a program that
    /// cannot be started gives status -1 and the reason as its standard error. The default
    /// directory is the temporary directory itself (probes and short tools that write nothing;
    /// one that writes is given a `ScratchDirectory`).
    @discardableResult
    package static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:],
                            path: String = "/usr/bin:/bin:/usr/sbin:/sbin",
                            in directory: URL = FileManager.default.temporaryDirectory) -> ChildResult {
        do {
            return try start(executable, arguments, environment: environment, path: path, in: directory).waitForExit()
        } catch {
            return ChildResult(status: -1, stdout: "", stderr: "\(executable.path) could not be started: \(error)")
        }
    }
}
#endif

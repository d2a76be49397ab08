#if os(Linux) || os(macOS)
import Foundation

/// A child process, with the part of `Foundation.Process`'s interface this package uses. The
/// package's one way to start a process: the session `command` source (ManashikiSync), the
/// test harnesses and the benchmark all use it.
///
/// It exists only where processes can be started by an app or a tool: Linux and macOS. On
/// iOS, tvOS, watchOS and visionOS there is no such type (use `ProcessCapture.isSupported`
/// to find out at run time; `ProcessCapture.run` reports a clear error there). How it spawns is
/// decided in `Platform/SpawnBackend.swift`: `posix_spawn` on Linux (never `Foundation.Process`,
/// whose `run()` can crash while scanning `/proc/self/fd`, swift-corelibs-foundation #5472),
/// `Foundation.Process` on macOS. The child inherits no descriptor but 0, 1 and 2.
package final class ChildProcess: @unchecked Sendable {
    /// How the process ended.
    package enum TerminationReason: Sendable { case exit, uncaughtSignal }

    /// The program to run (a path; see `ChildProcess.executable(named:)` for a PATH lookup).
    package var executableURL: URL?
    /// Its arguments (without argv[0]).
    package var arguments: [String] = []
    /// Its whole environment; nil inherits this process's.
    package var environment: [String: String]?
    /// Where it starts; nil is this process's current directory.
    package var currentDirectoryURL: URL?
    /// Standard input: a `Pipe` or a `FileHandle`; nil is /dev/null.
    package var standardInput: Any?
    /// Standard output: a `Pipe` or a `FileHandle`; nil is /dev/null.
    package var standardOutput: Any?
    /// Standard error: a `Pipe` or a `FileHandle`; nil is /dev/null.
    package var standardError: Any?

    private let backend = SpawnBackend()

    package init() {}

    /// The child's pid (0 before `run()`).
    package var processIdentifier: Int32 { backend.processIdentifier }

    /// Starts the child.
    /// - Throws: `POSIXError` when it cannot be started.
    package func run() throws {
        guard let executableURL else { throw POSIXError(.ENOENT) }
        try backend.start(executableURL, arguments: arguments, environment: environment,
                          currentDirectory: currentDirectoryURL,
                          input: standardInput, output: standardOutput, error: standardError)
    }

    /// Whether the child has not exited yet (reaps it when it has).
    package var isRunning: Bool { backend.isRunning }

    /// Waits for the child to exit.
    package func waitUntilExit() { backend.waitUntilExit() }

    /// The exit status, or the signal number when `terminationReason` is `.uncaughtSignal`.
    package var terminationStatus: Int32 { backend.terminationStatus }

    /// Whether it exited or was killed by a signal.
    package var terminationReason: TerminationReason { backend.terminationReason }

    /// What the child used, once it has exited (`wait4`): its peak resident set size and CPU
    /// time, including its own waited-for children. Nil where the system does not report it for
    /// a child (macOS, whose `Foundation.Process` reaps it).
    package var resourceUsage: ResourceUsage? { backend.resourceUsage }

    /// A finished child's resource usage.
    package struct ResourceUsage: Sendable, Equatable {
        /// Peak resident set size in KiB.
        package var maxResidentKiB: Int
        /// User plus system CPU seconds.
        package var cpuSeconds: Double
    }

    /// Sends SIGTERM.
    package func terminate() {
        let pid = processIdentifier
        if pid > 0 { kill(pid, SIGTERM) }
    }

    /// The first executable called `name` in `path` (default: this process's `PATH`); a name
    /// with a slash is taken as it is.
    package static func executable(named name: String,
                                   path: String? = ProcessInfo.processInfo.environment["PATH"]) -> URL? {
        if name.contains("/") { return URL(fileURLWithPath: name) }
        for directory in (path ?? "/usr/bin:/bin").split(separator: ":") where !directory.isEmpty {
            let candidate = String(directory) + "/" + name
            if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        return nil
    }
}
#endif

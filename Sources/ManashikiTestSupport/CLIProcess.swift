#if os(Linux) || os(macOS)
import Foundation

/// Runs the built `manashiki-sync` (or another program) as a child process: the one harness of
/// the CLI and reliability tests. The binary comes from `BuiltProduct`, the process is a
/// `RunningChild`, what it left a `ChildResult`.
package enum CLIProcess {
    /// The built `manashiki-sync`.
    package static var binary: URL { BuiltProduct.manashikiSync }

    /// Starts `executable` (default: manashiki-sync) in `directory` with exactly `environment`
    /// plus `PATH`, `HOME` (the directory) and `LANG`; standard input is /dev/null.
    package static func start(_ arguments: [String], executable: URL? = nil, environment: [String: String] = [:],
                              in directory: URL) throws -> RunningChild {
        try RunningChild.start(executable ?? binary, arguments, environment: environment, in: directory)
    }

    /// Runs it to the end (SIGKILL after `timeout` seconds, recorded as an issue).
    package static func run(_ arguments: [String], executable: URL? = nil, environment: [String: String] = [:],
                            in directory: URL, timeout: Double = 60) async throws -> ChildResult {
        try await start(arguments, executable: executable, environment: environment, in: directory).finish(timeout: timeout)
    }
}
#endif

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiProcess
import Testing

/// A real tool from Debian's packages or PyPI (promtool, systemd-analyze, check-jsonschema…)
/// run by a test, found on the PATH that `.ci/run` sets up. Shared by the test targets (the CLI's
/// validators, the publisher-signature tests' `model_signing` and `openssl`).
package enum ExternalTool {
    /// What a tool run left.
    package struct Result: Sendable {
        /// The exit status.
        package var status: Int32
        /// Standard output and standard error together.
        package var output: String
        /// Whether it exited 0.
        package var succeeded: Bool { status == 0 }
    }

    /// The directories searched, in order (pip's console scripts may live under pyenv).
    package static var searchPath: [String] {
        let inherited = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        return inherited + ["/usr/local/bin", "/usr/bin", "/bin", "/usr/sbin", "/sbin"]
    }

    /// The full path of `name`, or nil when it is not installed.
    package static func find(_ name: String) -> String? {
        ChildProcess.executable(named: name, path: searchPath.joined(separator: ":"))?.path
    }

    /// Runs `name` with `arguments` (stdin from `input`, else /dev/null), stdout and stderr
    /// together. Records an issue (and returns status 127) when the tool is missing: CI
    /// installs every one of them, so a missing tool is a failure, never a skip.
    package static func run(_ name: String, _ arguments: [String], input: URL? = nil, in directory: URL? = nil,
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> Result {
        guard let path = find(name) else {
            Issue.record("\(name) is not installed (.ci/run installs it)", sourceLocation: sourceLocation)
            return Result(status: 127, output: "")
        }
        // A tool that writes files is given a ScratchDirectory by its test; the rest (validators,
        // --version probes) write nothing and run in the temporary directory itself.
        let dir = directory ?? FileManager.default.temporaryDirectory
        // The real HOME (and pyenv's root, when set): pip's console scripts may be pyenv shims.
        var env = ["PATH": searchPath.joined(separator: ":"), "SYSTEMD_LOG_COLOR": "0", "HOME": NSHomeDirectory()]
        if let root = ProcessInfo.processInfo.environment["PYENV_ROOT"] { env["PYENV_ROOT"] = root }
        let child: RunningChild
        if let input {
            // Standard input from a file, through sh (RunningChild's stdin is /dev/null).
            child = try RunningChild.start(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec \"$0\" \"$@\" < \"$INPUT_FILE\"", path] + arguments,
                                           environment: env.merging(["INPUT_FILE": input.path]) { $1 }, path: env["PATH"]!, in: dir)
        } else {
            child = try RunningChild.start(URL(fileURLWithPath: path), arguments, environment: env, path: env["PATH"]!, in: dir)
        }
        let r = await child.finish(timeout: 120)
        return Result(status: r.status, output: r.stdout + r.stderr)
    }
}
#endif

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiProcess
import Testing

/// A real tool from Debian's packages or PyPI (promtool, systemd-analyze, check-jsonschema,
/// model_signing…) run by a test, found on `Peer.searchPath`. Shared by the test targets (the
/// CLI's validators, the publisher-signature tests' `model_signing` and `openssl`). Tests that
/// run one require its peer (`.requires(.promtool)`), so they are skipped, or fail under CI,
/// before getting here.
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

    /// Runs `name` with `arguments` (stdin from `input`, else /dev/null), stdout and stderr
    /// together. Records an issue (and returns status 127) when the tool is missing: a test
    /// that runs a peer requires it, so this is a test that forgot its `.requires`.
    package static func run(_ name: String, _ arguments: [String], input: URL? = nil, in directory: URL? = nil,
                            sourceLocation: SourceLocation = #_sourceLocation) async throws -> Result {
        guard let path = Peer.find(name)?.path else {
            let missing = Peer.command(name).map { PeerMissing(peers: [$0]).description } ?? "\(name) is not installed"
            Issue.record("\(missing) (and the test lacks its .requires trait)", sourceLocation: sourceLocation)
            return Result(status: 127, output: "")
        }
        // A tool that writes files is given a ScratchDirectory by its test; the rest (validators,
        // --version probes) write nothing and run in the temporary directory itself.
        let dir = directory ?? FileManager.default.temporaryDirectory
        // The real HOME (and pyenv's root, when set): pip's console scripts may be pyenv shims.
        let env = Peer.environment.merging(["SYSTEMD_LOG_COLOR": "0"]) { $1 }
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

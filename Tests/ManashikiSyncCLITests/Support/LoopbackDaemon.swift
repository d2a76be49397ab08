#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import ManashikiLoopback
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A test's daemon (tinyproxy, microsocks) running on a free loopback port; killed when
/// released without `stop()`, so a test that threw leaves nothing running.
final class LoopbackDaemon: @unchecked Sendable {
    /// The port it listens on.
    let port: Int
    private let child: RunningChild
    private var stopped = false
    /// What ends it when it is released without `stop()` (SIGTERM for a wrapper such as
    /// `timeout`, which passes it on; SIGKILL could not be passed on).
    var releaseSignal = SIGKILL

    /// Its pid.
    var pid: Int32 { child.pid }
    /// What it printed so far (stdout, then stderr).
    var output: String { child.out.text + child.err.text }

    /// `127.0.0.1:port`.
    var address: String { "127.0.0.1:\(port)" }

    /// Calls `launch` with a free port until the child it starts is running and accepts
    /// connections there (a port found free can be taken by another test's server before the
    /// daemon binds it; the daemon then exits while the port still accepts, so both count).
    /// - Throws: when `executable` is nil (not installed), or no attempt came up, with the
    ///   last attempt's output.
    init(_ name: String, executable: URL?, attempts: Int = 3, _ launch: (URL, Int) throws -> RunningChild) async throws {
        guard let executable else {
            throw NSError(domain: name, code: 2, userInfo: [NSLocalizedDescriptionKey: "\(name) is not installed (scripts/test installs it)"])
        }
        var output = ""
        for _ in 0..<attempts {
            let port = try LoopbackPort.free()
            let child = try launch(executable, port)
            let ready = await child.wait(timeout: 20) { !child.isRunning || LoopbackPort.accepts(port) }
            if ready && child.isRunning {
                self.port = port
                self.child = child
                return
            }
            child.send(SIGKILL)
            let r = await child.finish(timeout: 5)
            output = r.stdout + r.stderr
        }
        throw NSError(domain: name, code: 1, userInfo: [NSLocalizedDescriptionKey: "\(name) did not start: \(output)"])
    }

    deinit {
        if !stopped { child.send(releaseSignal) }
    }

    /// Stops it (SIGTERM) and returns what it printed.
    func stop() async -> ChildResult {
        stopped = true
        child.send(SIGTERM)
        return await child.finish(timeout: 10)
    }
}
#endif

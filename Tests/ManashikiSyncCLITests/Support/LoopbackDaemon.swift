import Foundation
import ManashikiTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts a test's daemon (tinyproxy, microsocks) on a free loopback port.
enum LoopbackDaemon {
    /// Calls `launch` with a free port until the child it starts is running and accepts
    /// connections there (a port found free can be taken by another test's server before the
    /// daemon binds it; the daemon then exits while the port still accepts, so both count).
    /// - Throws: when no attempt came up, with the last attempt's output.
    static func start(_ name: String, attempts: Int = 3, _ launch: (Int) throws -> RunningChild) async throws -> (port: Int, child: RunningChild) {
        var output = ""
        for _ in 0..<attempts {
            let port = try NginxMirror.freePort()
            let child = try launch(port)
            let ready = await child.wait(timeout: 20) { !child.isRunning || NginxMirror.accepts(port: port) }
            if ready && child.isRunning { return (port, child) }
            child.send(SIGKILL)
            let r = await child.finish(timeout: 5)
            output = r.stdout + r.stderr
        }
        throw NSError(domain: name, code: 1, userInfo: [NSLocalizedDescriptionKey: "\(name) did not start: \(output)"])
    }
}

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport

/// Debian's tinyproxy on a free loopback port with a generated configuration, in the
/// foreground, logging every request it relays (`Request (file descriptor 5): GET http://… HTTP/1.1`,
/// `CONNECT host:port`), as a corporate forward proxy would.
final class TinyProxy: Sendable {
    /// Debian's `/usr/bin/tinyproxy` (tests using it require `.tinyproxy`).
    static var executable: URL? { Peer.tinyproxy.executable }

    private let scratch = ScratchDirectory("tinyproxy")
    var workdir: URL { scratch.url }
    private let daemon: LoopbackDaemon
    var port: Int { daemon.port }

    /// `127.0.0.1:port`.
    var address: String { daemon.address }
    /// Its log so far.
    var log: String { (try? String(contentsOf: workdir.appendingPathComponent("tinyproxy.log"), encoding: .utf8)) ?? "" }
    /// The request lines it relayed (`GET http://127.0.0.1:1234/api/models HTTP/1.1`, `CONNECT 127.0.0.1:1 HTTP/1.1`).
    var requests: [String] {
        log.split(separator: "\n").compactMap { line in
            line.range(of: "): ").flatMap { r in line.contains("Request (file descriptor") ? String(line[r.upperBound...]) : nil }
        }
    }

    /// Starts tinyproxy. `extra` holds more configuration lines (`BasicAuth user password`,
    /// `ConnectPort 443`).
    init(extra: [String] = []) async throws {
        let workdir = scratch.url
        daemon = try await LoopbackDaemon("tinyproxy", executable: Self.executable) { executable, port in
            let config = ([
                "Port \(port)",
                "Listen 127.0.0.1",
                "LogFile \"\(workdir.path)/tinyproxy.log\"",
                "LogLevel Connect",
                "Allow 127.0.0.1",
                "DisableViaHeader Yes",
                "MaxClients 32",
                "Timeout 60",
            ] + extra).joined(separator: "\n") + "\n"
            let path = workdir.appendingPathComponent("tinyproxy.conf").path
            try config.write(toFile: path, atomically: true, encoding: .utf8)
            return try RunningChild.start(executable, ["-d", "-c", path], path: "/usr/bin:/bin", in: workdir)
        }
    }

    /// Stops it and returns the request lines it relayed (`requests`, read once it has exited,
    /// so every line is in the file).
    @discardableResult
    func stop() async -> [String] {
        _ = await daemon.stop()
        let relayed = requests
        scratch.remove()
        return relayed
    }
}
#endif

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport

/// Debian's microsocks (a SOCKS5 server) on a free loopback port, optionally demanding a user
/// name and password (`-u`/`-P`), logging every connection it opens
/// (`client[5] 127.0.0.1: connected to 127.0.0.1:40123`).
final class MicroSocks: Sendable {
    /// `/usr/bin/microsocks` (tests using it require `.microsocks`).
    static var executable: URL? { Peer.microsocks.executable }

    private let daemon: LoopbackDaemon
    var port: Int { daemon.port }
    /// `127.0.0.1:port`.
    var address: String { daemon.address }

    /// Starts microsocks; with `user` and `password` it accepts only those.
    init(user: String? = nil, password: String? = nil) async throws {
        daemon = try await LoopbackDaemon("microsocks", executable: Self.executable) { executable, port in
            var arguments = ["-i", "127.0.0.1", "-p", String(port)]
            if let user, let password { arguments += ["-u", user, "-P", password] }
            // The temporary directory itself, not a ScratchDirectory: microsocks writes no file.
            return try RunningChild.start(executable, arguments, path: "/usr/bin:/bin", in: FileManager.default.temporaryDirectory)
        }
    }

    /// Stops it and returns the `host:port` of every connection it opened for a client.
    @discardableResult
    func stop() async -> [String] {
        let result = await daemon.stop()
        return (result.stdout + "\n" + result.stderr).split(separator: "\n").compactMap { line in
            line.range(of: ": connected to ").map { String(line[$0.upperBound...]) }
        }
    }
}
#endif

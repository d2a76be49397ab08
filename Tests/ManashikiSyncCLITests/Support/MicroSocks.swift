import Foundation
import ManashikiTestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Debian's microsocks (a SOCKS5 server) on a free loopback port, optionally demanding a user
/// name and password (`-u`/`-P`), logging every connection it opens
/// (`client[5] 127.0.0.1: connected to 127.0.0.1:40123`).
final class MicroSocks: @unchecked Sendable {
    /// `/usr/bin/microsocks`, found on the tools' search path.
    static var executable: URL? { ExternalTool.find("microsocks").map(URL.init(fileURLWithPath:)) }
    static var isInstalled: Bool { executable != nil }

    let port: Int
    private let child: RunningChild
    private var stopped = false

    /// `127.0.0.1:port`.
    var address: String { "127.0.0.1:\(port)" }

    /// Starts microsocks; with `user` and `password` it accepts only those.
    init(user: String? = nil, password: String? = nil) async throws {
        guard let executable = Self.executable else {
            throw NSError(domain: "MicroSocks", code: 2, userInfo: [NSLocalizedDescriptionKey: "microsocks is not installed (.ci/run installs it)"])
        }
        let (port, child) = try await LoopbackDaemon.start("microsocks") { port in
            var arguments = ["-i", "127.0.0.1", "-p", String(port)]
            if let user, let password { arguments += ["-u", user, "-P", password] }
            return try RunningChild.start(executable, arguments, path: "/usr/bin:/bin", in: FileManager.default.temporaryDirectory)
        }
        self.port = port
        self.child = child
    }

    /// A test that threw before `stop()` leaves no proxy running.
    deinit {
        if !stopped { child.send(SIGKILL) }
    }

    /// Stops it and returns the `host:port` of every connection it opened for a client.
    @discardableResult
    func stop() async -> [String] {
        stopped = true
        child.send(SIGTERM)
        let result = await child.finish(timeout: 10)
        return (result.stdout + "\n" + result.stderr).split(separator: "\n").compactMap { line in
            line.range(of: ": connected to ").map { String(line[$0.upperBound...]) }
        }
    }
}

#if os(Linux)
import Foundation
import ManashikiLoopback

/// nginx (Debian's package) serving a directory on a loopback port, for reference downloads
/// that every tool fetches from the same server. `NginxServer` (ManashikiLoopback, shared with
/// the tests) starts and stops it; this says how the bench's server is shaped.
final class Nginx {
    /// How the server is shaped beyond serving files.
    struct Options {
        /// nginx's `limit_rate` for every response (per connection), e.g. `16m` (16 MiB/s); nil: none.
        var limitRate: String?
        /// Log every request (`NginxAccessLog`'s format) into `access.log` under the workdir.
        var accessLog = false
    }

    let root: URL
    private let server: NginxServer
    /// The access log, when `Options.accessLog`.
    let accessLog: NginxAccessLog?

    static var isInstalled: Bool { NginxServer.isInstalled }

    /// Starts nginx with a private configuration in `workdir` (its error log is
    /// `<workdir>/error.log`); `root` is served with autoindex (rclone's HTTP backend lists
    /// directories that way).
    init(root: URL, workdir: URL, options: Options = Options()) throws {
        self.root = root
        let log = options.accessLog ? NginxAccessLog(url: workdir.appendingPathComponent("access.log")) : nil
        accessLog = log
        var configuration = NginxServer.Configuration(server: """
        root \(root.path);
            autoindex on;
            \(options.limitRate.map { "limit_rate \($0);" } ?? "")
        """)
        configuration.workerProcesses = 2
        configuration.workerConnections = 512
        let logging = log.map { "log_format bench '\(NginxAccessLog.format)';\n  access_log \($0.url.path) bench;" } ?? "access_log off;"
        configuration.http = "\(logging)\n  tcp_nopush on;\n  keepalive_requests 10000;"
        server = try NginxServer(workdir: workdir, configuration: configuration)
    }

    var port: Int { server.port }
    var origin: String { "http://127.0.0.1:\(port)" }

    func stop() { server.stop() }
}
#endif

#if os(Linux)
import Foundation

/// nginx (Debian's package) serving a directory on a loopback port, for reference downloads
/// that every tool fetches from the same server.
final class Nginx {
    /// How the server is shaped beyond serving files.
    struct Options {
        /// nginx's `limit_rate` for every response (per connection), e.g. `16m` (16 MiB/s); nil: none.
        var limitRate: String?
        /// Log every request (`NginxAccessLog`'s format) into `access.log` under the workdir.
        var accessLog = false
    }

    let port: Int
    let root: URL
    private let workdir: URL
    /// The access log, when `Options.accessLog`.
    let accessLog: NginxAccessLog?

    static var isInstalled: Bool {
        ["/usr/sbin/nginx", "/usr/bin/nginx"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts nginx as a daemon with a private configuration; `root` is served with autoindex
    /// (rclone's HTTP backend lists directories that way).
    init(root: URL, workdir: URL, options: Options = Options()) throws {
        guard Self.isInstalled else {
            throw BenchError("nginx is not installed: apt-get install -y nginx-light (or nginx)")
        }
        self.root = root
        self.workdir = workdir
        let log = options.accessLog ? NginxAccessLog(url: workdir.appendingPathComponent("access.log")) : nil
        accessLog = log
        let logging = log.map { "log_format bench '\(NginxAccessLog.format)';\n  access_log \($0.url.path) bench;" } ?? "access_log off;"
        let limit = options.limitRate.map { "limit_rate \($0);" } ?? ""
        var chosen = 0
        for candidate in (0..<20).map({ _ in Int.random(in: 20000...60000) }) {
            let config = """
            worker_processes 2;
            daemon on;
            pid \(workdir.path)/nginx.pid;
            error_log \(workdir.path)/nginx-error.log;
            events { worker_connections 512; }
            http {
              \(logging)
              sendfile on;
              tcp_nopush on;
              keepalive_requests 10000;
              client_body_temp_path \(workdir.path)/nginx-tmp;
              proxy_temp_path \(workdir.path)/nginx-tmp;
              fastcgi_temp_path \(workdir.path)/nginx-tmp;
              uwsgi_temp_path \(workdir.path)/nginx-tmp;
              scgi_temp_path \(workdir.path)/nginx-tmp;
              server {
                listen 127.0.0.1:\(candidate);
                root \(root.path);
                autoindex on;
                \(limit)
              }
            }
            """
            try FileManager.default.createDirectory(at: workdir.appendingPathComponent("nginx-tmp"), withIntermediateDirectories: true)
            let path = workdir.appendingPathComponent("nginx.conf").path
            try config.write(toFile: path, atomically: true, encoding: .utf8)
            // Through a shell with output to /dev/null: the daemonized master would otherwise
            // keep our stdout pipe open, and reading it to the end would never return.
            if try Child.shell("nginx -c '\(path)' > /dev/null 2>&1").status == 0 { chosen = candidate; break }
        }
        guard chosen != 0 else { throw BenchError("nginx did not start; see \(workdir.path)/nginx-error.log") }
        port = chosen
        usleep(200_000)
    }

    var origin: String { "http://127.0.0.1:\(port)" }

    func stop() {
        if let pid = try? String(contentsOfFile: workdir.path + "/nginx.pid", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines), let p = Int32(pid) {
            kill(p, SIGQUIT)
        }
    }

    deinit { stop() }
}
#endif

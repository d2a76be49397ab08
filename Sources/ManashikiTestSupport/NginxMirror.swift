#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiLoopback
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Debian's nginx serving a directory (an exported bundle) on a free loopback port, with a
/// generated configuration, as a site mirror does. The access log records the credential
/// headers each request carried (`-` when none), so tests can check that mirrors get none.
/// With `tls`, it listens with TLS and that certificate (the TLS tests also give it their own
/// `server` directives, e.g. a `proxy_pass` to the development registry); the error log is at
/// level info, so each failed TLS handshake leaves a line there.
package final class NginxMirror: @unchecked Sendable {
    package static let executable = URL(fileURLWithPath: "/usr/sbin/nginx")
    package static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable.path) }

    package let port: Int
    private let scratch = ScratchDirectory("nginx")
    /// Its configuration, logs and temporary files.
    package var workdir: URL { scratch.url }
    private let child: RunningChild

    package let isTLS: Bool

    package var baseURL: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }
    package var accessLog: String { (try? String(contentsOf: workdir.appendingPathComponent("access.log"), encoding: .utf8)) ?? "" }
    package var errorLog: String { (try? String(contentsOf: workdir.appendingPathComponent("error.log"), encoding: .utf8)) ?? "" }
    /// One line per request: `STATUS RANGE BODY_BYTES_SENT CONNECTION` (`-` for no `Range`), for
    /// the transfer tests (which bytes each connection asked for and got).
    package var rangeLog: String { (try? String(contentsOf: workdir.appendingPathComponent("ranges.log"), encoding: .utf8)) ?? "" }

    package convenience init(root: URL, tls: (certificate: URL, key: URL)? = nil) async throws {
        try await self.init(server: "root \(root.path);\n    location /blobs/ { default_type application/octet-stream; }", tls: tls)
    }

    /// nginx with `server` as the body of its one server block (after `listen`).
    package init(server: String, tls: (certificate: URL, key: URL)? = nil) async throws {
        isTLS = tls != nil
        let workdir = scratch.url
        _ = try scratch.directory("tmp")
        let w = workdir.path
        func config(_ port: Int) -> String { """
        daemon off;
        master_process on;
        worker_processes 1;
        pid \(w)/nginx.pid;
        error_log \(w)/error.log info;
        events { worker_connections 64; }
        http {
          log_format creds '$request_uri $status key=$http_x_api_key auth=$http_authorization';
          access_log \(w)/access.log creds;
          log_format ranges '$status $http_range $body_bytes_sent $connection';
          access_log \(w)/ranges.log ranges;
          client_body_temp_path \(w)/tmp; proxy_temp_path \(w)/tmp; fastcgi_temp_path \(w)/tmp;
          uwsgi_temp_path \(w)/tmp; scgi_temp_path \(w)/tmp;
          sendfile on;
          server {
            listen 127.0.0.1:\(port)\(tls == nil ? "" : " ssl");
            \(tls.map { "ssl_certificate \($0.certificate.path); ssl_certificate_key \($0.key.path);" } ?? "")
            \(server)
          }
        }
        """ }
        let path = workdir.appendingPathComponent("nginx.conf").path
        let pidFile = w + "/nginx.pid"
        // A free port can be taken by another test's server before nginx binds it; nginx then
        // exits (bind: address in use) while the port still accepts, served by the other one.
        // So ours is ready only once its master wrote the pid file, which nginx does after
        // binding; otherwise try another port.
        var started: (port: Int, child: RunningChild)?
        for _ in 0..<5 where started == nil {
            let candidate = try LoopbackPort.free()
            try config(candidate).write(toFile: path, atomically: true, encoding: .utf8)
            try? FileManager.default.removeItem(atPath: pidFile)
            let child = try RunningChild.start(Self.executable, ["-c", path, "-p", w], path: "/usr/sbin:/usr/bin:/bin", in: workdir)
            let ready = await child.wait(timeout: 20) {
                !child.isRunning || (FileManager.default.fileExists(atPath: pidFile) && LoopbackPort.accepts(candidate))
            }
            if ready && child.isRunning {
                started = (candidate, child)
            } else {
                child.send(SIGKILL)
                _ = await child.finish(timeout: 5)
            }
        }
        guard let started else {
            let log = (try? String(contentsOfFile: w + "/error.log", encoding: .utf8)) ?? ""
            throw NSError(domain: "NginxMirror", code: 1, userInfo: [NSLocalizedDescriptionKey: "nginx did not start: \(log)"])
        }
        port = started.port
        child = started.child
    }

    package func stop() async {
        child.send(SIGQUIT)
        _ = await child.finish(timeout: 10)
        scratch.remove()
    }
}
#endif

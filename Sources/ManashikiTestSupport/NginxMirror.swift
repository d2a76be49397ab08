#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiLoopback
import Testing

/// Debian's nginx serving a directory (an exported bundle) on a free loopback port, with a
/// generated configuration, as a site mirror does. The access log records the credential
/// headers each request carried (`-` when none), so tests can check that mirrors get none.
/// With `tls`, it listens with TLS and that certificate (the TLS tests also give it their own
/// `server` directives, e.g. a `proxy_pass` to the development registry); the error log is at
/// level info, so each failed TLS handshake leaves a line there.
package final class NginxMirror: Sendable {
    private let server: NginxServer
    private let scratch: ScratchDirectory
    package var port: Int { server.port }
    /// Its configuration, logs and temporary files.
    package var workdir: URL { scratch.url }

    package let isTLS: Bool

    package var baseURL: String { "\(isTLS ? "https" : "http")://127.0.0.1:\(port)" }
    package var accessLog: String { log("access.log") }
    package var errorLog: String { log("error.log") }
    /// One line per request: `STATUS RANGE BODY_BYTES_SENT CONNECTION` (`-` for no `Range`), for
    /// the transfer tests (which bytes each connection asked for and got).
    package var rangeLog: String { log("ranges.log") }

    package convenience init(root: URL, tls: (certificate: URL, key: URL)? = nil) async throws {
        try await self.init(server: "root \(root.path);\n    location /blobs/ { default_type application/octet-stream; }", tls: tls)
    }

    /// nginx with `server` as the body of its one server block (after `listen`), started by
    /// `NginxServer` in a scratch directory of its own.
    package init(server: String, tls: (certificate: URL, key: URL)? = nil) async throws {
        isTLS = tls != nil
        let scratch = ScratchDirectory("nginx")
        let w = scratch.url.path
        var configuration = NginxServer.Configuration(server: server)
        configuration.errorLogLevel = "info"
        configuration.http = """
        log_format creds '$request_uri $status key=$http_x_api_key auth=$http_authorization';
          access_log \(w)/access.log creds;
          log_format ranges '$status $http_range $body_bytes_sent $connection';
          access_log \(w)/ranges.log ranges;
        """
        configuration.tls = tls
        self.server = try await NginxServer.start(workdir: scratch.url, configuration: configuration)
        self.scratch = scratch
    }

    package func stop() async {
        if await !server.stop() { Issue.record("nginx did not exit on SIGQUIT in 10 s; killed") }
        scratch.remove()
    }

    private func log(_ name: String) -> String {
        (try? String(contentsOf: workdir.appendingPathComponent(name), encoding: .utf8)) ?? ""
    }
}
#endif

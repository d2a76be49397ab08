#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiProcess
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// nginx (Debian's package) on a free loopback port with a configuration written for it: the
/// package's one nginx starter, for the tests' `NginxMirror` and the benchmark's reference
/// server. Everything it writes is in `workdir`: `nginx.conf`, `nginx.pid`, `error.log` (startup
/// errors included) and `tmp/` (nginx's temporary paths); the caller's `http` directives put
/// access logs there too.
///
/// ```swift
/// var configuration = NginxServer.Configuration(server: "root \(www.path);")
/// configuration.http = "access_log off;"
/// let nginx = try NginxServer(workdir: dir, configuration: configuration)
/// defer { nginx.stop() }
/// ```
///
/// The master runs in the foreground (`daemon off`) as this process's child, so `stop()` can
/// wait for it to exit; one still running when the last reference goes gets SIGQUIT.
package final class NginxServer: Sendable {
    /// What the configuration says beyond what every caller needs (pid file, error log,
    /// temporary paths, `sendfile`, `listen` on the loopback port).
    package struct Configuration: Sendable {
        /// `worker_processes`.
        package var workerProcesses = 1
        /// `events { worker_connections … }`.
        package var workerConnections = 64
        /// The error log's level (`info` logs each failed TLS handshake); nil: nginx's default.
        package var errorLogLevel: String?
        /// Directives of the `http` block (access logs, `keepalive_requests`…).
        package var http = ""
        /// The body of the one `server` block, after its `listen`.
        package var server: String
        /// A certificate and its key: `listen … ssl` with them.
        package var tls: (certificate: URL, key: URL)?

        /// A configuration whose server block says `server`.
        package init(server: String) { self.server = server }
    }

    /// Where nginx is installed (Debian's /usr/sbin, Homebrew's bin), or nil.
    package static var executable: URL? {
        ChildProcess.executable(named: "nginx", path: "/usr/sbin:/usr/bin:/usr/local/sbin:/usr/local/bin:/opt/homebrew/bin")
    }
    /// Whether nginx is installed.
    package static var isInstalled: Bool { executable != nil }

    /// The port it listens on, on 127.0.0.1.
    package let port: Int
    /// Its configuration, pid file, logs and temporary files.
    package let workdir: URL
    private let master: ChildProcess

    /// `<workdir>/error.log`.
    package var errorLog: URL { workdir.appendingPathComponent("error.log") }

    /// Writes the configuration for a free port and starts nginx, until one attempt is ready
    /// (its master wrote the pid file, which nginx does after binding, and the port accepts):
    /// a port found free can be taken by another server before nginx binds it; nginx then
    /// exits while the port still accepts, served by the other one. Blocks until then (at
    /// most 20 s an attempt); async callers use `start(workdir:configuration:)`.
    /// - Throws: when nginx is not installed, or no attempt came up (with the error log).
    package init(workdir: URL, configuration: Configuration, attempts: Int = 5) throws {
        guard let executable = Self.executable else {
            throw NginxError(description: "nginx is not installed: apt-get install -y nginx-light (or nginx)")
        }
        try FileManager.default.createDirectory(at: workdir.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        self.workdir = workdir
        for _ in 0..<attempts {
            let port = try LoopbackPort.free()
            let master = try Self.launch(executable, workdir: workdir, configuration: configuration, port: port)
            if Self.isReady(master, port: port, pidFile: workdir.appendingPathComponent("nginx.pid")) {
                self.port = port
                self.master = master
                return
            }
            kill(master.processIdentifier, SIGKILL)
            master.waitUntilExit()
        }
        let log = (try? String(contentsOf: workdir.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        throw NginxError(description: "nginx did not start (\(workdir.path)/error.log): \(log)")
    }

    /// `init(workdir:configuration:)` on a thread of its own, so the blocking wait keeps no
    /// thread of the cooperative pool.
    package static func start(workdir: URL, configuration: Configuration) async throws -> NginxServer {
        try await onThread { Result { try NginxServer(workdir: workdir, configuration: configuration) } }.get()
    }

    deinit {
        if master.isRunning { kill(master.processIdentifier, SIGQUIT) }
    }

    /// Stops it gracefully (SIGQUIT; SIGKILL after `timeout` seconds) and waits for the exit.
    /// - Returns: whether it exited on SIGQUIT in time.
    @discardableResult
    package func stop(timeout: Double = 10) -> Bool {
        guard master.isRunning else { return true }
        kill(master.processIdentifier, SIGQUIT)
        let graceful = Self.poll(timeout: timeout) { !master.isRunning }
        if !graceful { kill(master.processIdentifier, SIGKILL) }
        master.waitUntilExit()
        return graceful
    }

    /// `stop(timeout:)` on a thread of its own.
    @discardableResult
    package func stop(timeout: Double = 10) async -> Bool {
        await Self.onThread { self.stop(timeout: timeout) as Bool }
    }

    // MARK: Starting

    /// Writes `nginx.conf` for `port` and starts the master (`-e`: startup errors go to the
    /// error log too, not to a standard error nobody reads).
    private static func launch(_ executable: URL, workdir: URL, configuration: Configuration, port: Int) throws -> ChildProcess {
        let config = workdir.appendingPathComponent("nginx.conf")
        try text(configuration, workdir: workdir.path, port: port).write(to: config, atomically: true, encoding: .utf8)
        try? FileManager.default.removeItem(at: workdir.appendingPathComponent("nginx.pid"))
        let master = ChildProcess()
        master.executableURL = executable
        master.arguments = ["-c", config.path, "-p", workdir.path, "-e", workdir.appendingPathComponent("error.log").path]
        master.currentDirectoryURL = workdir
        master.environment = ["PATH": "/usr/sbin:/usr/bin:/bin", "HOME": workdir.path, "LANG": "C.UTF-8"]
        try master.run()
        return master
    }

    /// The configuration's text.
    private static func text(_ configuration: Configuration, workdir w: String, port: Int) -> String {
        let tls = configuration.tls.map { "ssl_certificate \($0.certificate.path); ssl_certificate_key \($0.key.path);" } ?? ""
        return """
        daemon off;
        master_process on;
        worker_processes \(configuration.workerProcesses);
        pid \(w)/nginx.pid;
        error_log \(w)/error.log\(configuration.errorLogLevel.map { " " + $0 } ?? "");
        events { worker_connections \(configuration.workerConnections); }
        http {
          client_body_temp_path \(w)/tmp; proxy_temp_path \(w)/tmp; fastcgi_temp_path \(w)/tmp;
          uwsgi_temp_path \(w)/tmp; scgi_temp_path \(w)/tmp;
          sendfile on;
          \(configuration.http)
          server {
            listen 127.0.0.1:\(port)\(configuration.tls == nil ? "" : " ssl");
            \(tls)
            \(configuration.server)
          }
        }
        """
    }

    /// Whether the master came up on `port` (pid file written, port accepting) and still runs.
    private static func isReady(_ master: ChildProcess, port: Int, pidFile: URL) -> Bool {
        let settled = poll(timeout: 20) {
            !master.isRunning || (FileManager.default.fileExists(atPath: pidFile.path) && LoopbackPort.accepts(port))
        }
        return settled && master.isRunning
    }

    /// Checks `condition` every 10 ms for at most `timeout` seconds (once more at the end).
    private static func poll(timeout: Double, _ condition: () -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if condition() { return true }
            usleep(10_000)
        }
        return condition()
    }

    /// Runs `body` on a new thread and returns its result.
    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: body()) }
            thread.name = "manashiki.nginx"
            thread.start()
        }
    }
}

/// nginx is not installed or did not start.
package struct NginxError: Error, CustomStringConvertible, LocalizedError {
    /// What went wrong and where to look.
    package let description: String
    package var errorDescription: String? { description }
}
#endif

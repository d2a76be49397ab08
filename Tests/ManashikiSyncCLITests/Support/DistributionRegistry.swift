#if os(Linux) || os(macOS)
import Foundation
import ManashikiTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Debian's `docker-registry` (the CNCF distribution registry, 2.8: `docker-registry serve
/// config.yml`, configuration format `version: 0.1`) on a free loopback port, storing in a
/// scratch directory, with TLS from a test CA and htpasswd Basic auth, or the token auth of a
/// `TokenServer`, or neither. Its access log (stdout and stderr) is readable live.
///
/// The suites share one registry of each kind (`shared…`) and use their own repository names;
/// a test that damages blobs starts its own. A shared registry lives as long as the test
/// process: `atexit` ends it, and `timeout` ends it after 30 minutes if the process died.
final class DistributionRegistry: @unchecked Sendable {
    static var executable: URL? { Peer.dockerRegistry.executable }

    enum Auth {
        case none
        /// htpasswd (bcrypt) with these users.
        case basic([String: String])
        /// The registry verifies the tokens of `server`.
        case token(TokenServer)
    }

    let daemon: LoopbackDaemon
    private let scratch = ScratchDirectory("distribution")
    var directory: URL { scratch.url }
    let tls: Bool
    let ca: TestCertificateAuthority?
    var port: Int { daemon.port }
    /// `127.0.0.1:PORT`.
    var host: String { "127.0.0.1:\(port)" }
    /// Where blobs are stored: `docker/registry/v2/blobs/sha256/<2>/<hex>/data`.
    var storage: URL { directory.appendingPathComponent("data") }
    /// Everything it logged so far (access log lines included).
    var log: String { daemon.output }

    /// The stored bytes of a blob.
    func blobData(_ sha256: String) -> URL {
        storage.appendingPathComponent("docker/registry/v2/blobs/sha256/\(sha256.prefix(2))/\(sha256)/data")
    }

    /// `oci://127.0.0.1:PORT/REPO:TAG` (`oci+http://` without TLS).
    func reference(_ repository: String, tag: String = "v1") -> String { "\(tls ? "oci" : "oci+http")://\(host)/\(repository):\(tag)" }

    init(auth: Auth, tls: Bool = true) async throws {
        let directory = scratch.url
        _ = try scratch.directory("data")
        self.tls = tls
        var tlsBlock = ""
        if tls {
            let ca = try await TestCertificateAuthority.make(name: "Manashiki OCI Test CA")
            let (cert, key) = try await ca.serverCertificate("registry", subjectAltName: "IP:127.0.0.1,DNS:localhost")
            tlsBlock = "  tls:\n    certificate: \(cert.path)\n    key: \(key.path)\n"
            self.ca = ca
        } else {
            ca = nil
        }
        var authBlock = ""
        switch auth {
        case .none: break
        case .basic(let users):
            var lines = ""
            for (user, password) in users.sorted(by: { $0.key < $1.key }) {
                let r = try await ExternalTool.run("htpasswd", ["-Bbn", user, password])
                try #require(r.succeeded, "htpasswd failed: \(r.output)")
                lines += r.output.trimmingCharacters(in: .whitespacesAndNewlines) + "\n"
            }
            try Data(lines.utf8).write(to: directory.appendingPathComponent("htpasswd"))
            authBlock = "auth:\n  htpasswd:\n    realm: manashiki-test\n    path: \(directory.path)/htpasswd\n"
        case .token(let server):
            authBlock = "auth:\n  token:\n    realm: \(server.realm)\n    service: \(server.service)\n    issuer: \(server.issuer)\n    rootcertbundle: \(server.certificate.path)\n"
        }
        let dir = directory
        daemon = try await LoopbackDaemon("docker-registry", executable: Self.executable) { executable, port in
            let config = """
            version: 0.1
            log:
              level: info
              accesslog:
                disabled: false
            storage:
              filesystem:
                rootdirectory: \(dir.path)/data
              delete:
                enabled: true
              maintenance:
                uploadpurging:
                  enabled: false
            http:
              addr: 127.0.0.1:\(port)
              secret: manashiki-test-upload-state-secret
            \(tlsBlock)\(authBlock)
            """
            let file = dir.appendingPathComponent("config-\(port).yml")
            try Data(config.utf8).write(to: file)
            // `timeout` ends a registry whose test process died without running its atexit handler.
            return try RunningChild.start(URL(fileURLWithPath: "/usr/bin/timeout"), ["1800", executable.path, "serve", file.path], in: dir)
        }
        daemon.releaseSignal = SIGTERM
        DistributionRegistry.track(daemon.pid)
    }

    func stop() async {
        _ = await daemon.stop()
        ca?.remove()
        scratch.remove()
    }

    /// Access-log lines (`"GET /v2/… HTTP/1.1" 200 …`) for requests whose line contains `text`.
    func requests(containing text: String) -> [String] {
        log.split(separator: "\n").map(String.init).filter { $0.contains(" HTTP/1.1\" ") && $0.contains(text) }
    }

    // MARK: Shared registries

    nonisolated(unsafe) private static var pids: [Int32] = []
    private static let pidLock = NSLock()

    /// Ends `pid` when the test process exits.
    private static func track(_ pid: Int32) {
        pidLock.lock()
        if pids.isEmpty { atexit { DistributionRegistry.pidLock.lock(); DistributionRegistry.pids.forEach { kill($0, SIGTERM) }; DistributionRegistry.pidLock.unlock() } }
        pids.append(pid)
        pidLock.unlock()
    }

    /// The user and password of the shared Basic registry.
    static let user = "fleet", password = "Kq7RegistryPassw0rd"

    private static let basicTask = Task { try await DistributionRegistry(auth: .basic([user: password])) }
    /// One TLS + htpasswd registry for the suite.
    static func sharedBasic() async throws -> DistributionRegistry { try await basicTask.value }
}
#endif

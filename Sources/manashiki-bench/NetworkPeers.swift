#if os(Linux)
import Foundation

/// The tools of the `network` suite, each as a `Peer` that downloads the one artifact from
/// nginx into `dir` and, after its run, reports from nginx's access log how it fetched it
/// (connections, requests, `Range` requests, bytes) and, on the capped link, the packets the
/// link dropped.
struct NetworkPeers {
    static let hfTransferScript = """
    import hashlib, os, sys, hf_transfer
    url, out, durable = sys.argv[1], sys.argv[2], len(sys.argv) > 3
    hf_transfer.download(url, out, max_files=8, chunk_size=10 << 20)
    h = hashlib.sha256()
    with open(out, "rb") as f:
        while True:
            b = f.read(1 << 20)
            if not b: break
            h.update(b)
        if durable: os.fsync(f.fileno())
    print(h.hexdigest())
    """

    let context: BenchContext
    let servers: BenchServers
    let id: String
    let size: Int
    /// Where every tool writes (the store of the SDK and of `manashiki-sync` too).
    let dir: URL
    /// Every tool's output reaches the disk before its run ends (`sync FILE`, `os.fsync`).
    let durable: Bool
    let accessLog: NginxAccessLog
    /// The capped link's drop counter, when the link is the namespace's.
    let qdisc: QdiscCounter?

    var out: String { dir.appendingPathComponent("out.bin").path }
    var url: String { servers.blobURL(id) }
    var expected: String { servers.registry.sha256(modelId: id) }
    private var syncSuffix: String { durable ? " && sync '\(out)'" : "" }

    /// Untimed, before every run: the previous output gone, the log and drop counter marked.
    func resetting(_ paths: [String]) -> () throws -> Void {
        { [accessLog, qdisc] in
            for p in paths { try? FileManager.default.removeItem(atPath: p) }
            accessLog.reset()
            qdisc?.mark()
        }
    }

    /// Untimed, after every run: the run succeeded and `verified` holds, then how it fetched.
    func checking(_ what: String, _ verified: @escaping (Child.Result) -> Bool) -> (Child.Result) throws -> [String: Double] {
        { [accessLog, qdisc, size] r in
            guard r.status == 0, verified(r) else { throw BenchError("\(what) failed or did not deliver the artifact whole (exit \(r.status))") }
            let log = accessLog.read(untilBytes: Int64(size))
            guard log.bytes >= Int64(size) else { throw BenchError("\(what): nginx sent only \(log.bytes) of \(size) bytes (did it download from nginx?)") }
            var extra: [String: Double] = ["connections": Double(log.connections), "requests": Double(log.requests),
                                           "ranged": Double(log.rangedRequests), "extraMiB": Double(log.bytes - Int64(size)) / 1048576]
            if let qdisc { extra["drops"] = Double(qdisc.delta()) }
            return extra
        }
    }

    func fileIsWhole(_ path: String) -> Bool {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) == size
    }

    /// The SDK as the guide shows it: `ManashikiClient(apiKey:baseURL:storageDirectory:)` with
    /// its default transport, `downloadModel(_:progress:)`; the registry hands it nginx's URL.
    func sdk() -> Peer {
        let store = dir.appendingPathComponent("sdk-store").path
        var peer = Peer(name: "SDK `downloadModel`", argv: [context.me, "_download", servers.registry.apiBaseURL.absoluteString, BenchServers.key, store, id],
                        profiled: true, reset: resetting([store]))
        let check = checking("the SDK's download", { [expected] in $0.output.contains(expected) })
        peer.check = { r in
            var extra = try check(r)
            extra["growthMiB"] = Double(field("growthKiB", in: r.output) ?? 0) / 1024
            return extra
        }
        return peer
    }

    /// `manashiki-sync sync` (its command line, `_agent`, in the bench's binary) with a
    /// manifest of the one model.
    func syncCommand(manifest: URL, store: URL) -> Peer {
        let installed = store.appendingPathComponent("\(id).bin").path
        return Peer(name: "`manashiki-sync sync`", argv: [context.me, "_agent", "sync", "--quiet", "--manifest", manifest.path],
                    environment: ["MANASHIKI_API_KEY": BenchServers.key], profiled: true, reset: resetting([store.path]),
                    check: checking("manashiki-sync sync", { _ in fileIsWhole(installed) }))
    }

    func curl() -> Peer {
        let name = durable ? "`curl -o FILE && sync FILE`" : "`curl -o FILE`"
        return Peer.shell(name, "curl -sS -o '\(out)' '\(url)'\(syncSuffix)", reset: resetting([out]),
                          check: checking("curl", { _ in fileIsWhole(out) }))
    }

    /// aria2c verifies the SHA-256 itself (`--checksum`; exit 32 when it does not match). On
    /// ext4 its documented best allocation, `falloc` (the default, `prealloc`, writes zeros first).
    func aria2c() -> Peer {
        let name = "`aria2c -x8 -s8 -k8M --checksum=sha-256=…`" + (durable ? ", `sync`" : "")
        let script = "aria2c -q -x8 -s8 -k8M --checksum=sha-256=\(expected) --file-allocation=\(durable ? "falloc" : "none")"
            + " --allow-overwrite=true --auto-file-renaming=false -d '\(dir.path)' -o out.bin '\(url)'\(syncSuffix)"
        return Peer.shell(name, script, reset: resetting([out, out + ".aria2"]), check: checking("aria2c", { _ in fileIsWhole(out) }))
    }

    /// With the default `--multi-thread-cutoff` (250M), rclone 1.60 opened only 2 streams for
    /// 256 MiB (nginx's log), so the cutoff is lowered for the 8 streams asked for to happen.
    func rclone() -> Peer {
        let name = "`rclone copyto --multi-thread-streams 8 --multi-thread-cutoff 16M` + `sha256sum`" + (durable ? ", `sync`" : "")
        let slash = url.lastIndex(of: "/") ?? url.endIndex
        let (base, file) = (String(url[...slash]), String(url[url.index(after: slash)...]))
        let script = "RCLONE_CONFIG=/dev/null rclone copyto --http-url '\(base)' ':http:\(file)' '\(out)' --multi-thread-streams 8 --multi-thread-cutoff 16M"
            + " && sha256sum '\(out)'\(syncSuffix)"
        return Peer.shell(name, script, reset: resetting([out]), check: checking("rclone", { [expected] in $0.output.contains(expected) }))
    }

    func hfTransfer(script: String) -> Peer {
        Peer(name: "`hf_transfer` (8 files, 10 MiB chunks) + hashlib" + (durable ? " + `os.fsync`" : ""),
             argv: ["python3", script, url, out] + (durable ? ["fsync"] : []), reset: resetting([out]),
             check: checking("hf_transfer", { [expected] in $0.output.contains(expected) }))
    }

    /// Python's urllib + hashlib, one stream (the loopback side's CPU reference).
    func python(script: String) -> Peer {
        Peer(name: "Python urllib+hashlib", argv: ["python3", script, url, out], profiled: true, reset: resetting([out]),
             check: checking("Python", { [expected] in $0.output.contains(expected) }))
    }

    /// `openssl dgst -sha256` of the artifact nginx serves (on tmpfs): the hash floor.
    func openssl(artifact: String) -> Peer {
        Peer(name: "`openssl dgst -sha256` of the same file", argv: ["openssl", "dgst", "-sha256", artifact], check: { [expected] r in
            guard r.status == 0, r.output.contains(expected) else { throw BenchError("openssl dgst failed or printed another digest") }
            return [:]
        })
    }
}
#endif

#if os(Linux)
import Foundation

/// Issue #15's figures: one large artifact downloaded and verified by the SDK (called as the
/// guide shows) against the tools a user would otherwise use, all from one nginx on loopback,
/// alternating run by run, on tmpfs (pure CPU efficiency) and on disk (durable peers).
struct DownloadBench {
    static let suite = BenchSuite(
        name: "download",
        summary: "one large artifact (default 1024 MiB): SDK vs `curl -o`, Python urllib+hashlib and curl+sha256sum, on tmpfs and on disk (durable peers); SHA-256 vs openssl"
    ) { try DownloadBench(context: $0).run() }

    static let pythonScript = """
    import hashlib, os, sys, urllib.request
    h = hashlib.sha256()
    with urllib.request.urlopen(sys.argv[1]) as r, open(sys.argv[2], "wb") as f:
        while True:
            b = r.read(1 << 20)
            if not b: break
            h.update(b); f.write(b)
        if len(sys.argv) > 3:
            f.flush(); os.fsync(f.fileno())
    print(h.hexdigest())
    """

    let context: BenchContext

    func run() throws {
        let size = context.sizeMiB << 20
        let tmpfs = try context.tmpfs()
        let source = tmpfs.url.appendingPathComponent("download-source")
        let servers = try BenchServers(source: source, models: [("big", size, 1)])
        defer { servers.stop() }
        let url = servers.blobURL("big")
        let expected = servers.registry.sha256(modelId: "big")
        guard let artifact = servers.registry.artifactURL(modelId: "big") else { throw BenchError("no artifact file") }
        let python = context.disk.appendingPathComponent("fetch.py").path
        try Self.pythonScript.write(toFile: python, atomically: true, encoding: .utf8)
        print("\n### Download of one \(context.sizeMiB) MiB artifact (every tool from one nginx on loopback; the artifact on tmpfs)")
        print("\nThe SDK runs in a child process calling `ManashikiClient(apiKey:baseURL:storageDirectory:)` and `downloadModel(_:progress:)` as the guide shows; its storage requests go to nginx.")

        for durable in [false, true] {
            let base = durable ? context.disk : tmpfs.url
            let side = durable ? "disk" : "tmpfs"
            let dir = try context.freshDirectory(base, "download-out")
            let out = dir.appendingPathComponent("out.bin").path
            let store = dir.appendingPathComponent("store").path
            let removeOut = { try? FileManager.default.removeItem(atPath: out); return }
            let digestCheck: (Child.Result) throws -> [String: Double] = { r in
                guard r.status == 0, r.output.contains(expected) else { throw BenchError("failed or wrong digest (exit \(r.status))") }
                return [:]
            }
            let sync = durable ? " && sync '\(out)'" : ""
            let replaceStore = dir.appendingPathComponent("replace-store")
            let sdkPeer = { (name: String, store: String, reset: @escaping () throws -> Void) in
                Peer(name: name, argv: [context.me, "_download", servers.registry.apiBaseURL.absoluteString, BenchServers.key, store, "big"] + servers.rewrite,
                     profiled: true, reset: reset,
                     check: { r in
                         guard r.status == 0, r.output.contains(expected) else { throw BenchError("the SDK's download failed (exit \(r.status))") }
                         return ["growthMiB": Double(field("growthKiB", in: r.output) ?? 0) / 1024]
                     })
            }
            var peers = [
                sdkPeer("SDK `downloadModel`", store, { try? FileManager.default.removeItem(atPath: store) }),
                // Issue #34: re-downloading over an installed copy must cost what a fresh download
                // costs, plus the rename. The copy is put there untimed (the previous run's stays).
                sdkPeer("SDK `downloadModel` over an installed copy", replaceStore.path, { try Self.install(artifact, into: replaceStore) }),
                durable ? Peer.shell("`curl -o FILE && sync FILE`", "curl -sS -o '\(out)' '\(url)'\(sync)", reset: removeOut)
                    : Peer(name: "`curl -o FILE`", argv: ["curl", "-sS", "-o", out, url], reset: removeOut),
                Peer(name: durable ? "Python urllib+hashlib+`os.fsync`" : "Python urllib+hashlib",
                     argv: ["python3", python, url, out] + (durable ? ["fsync"] : []), profiled: true, reset: removeOut, check: digestCheck),
                Peer(name: durable ? "`curl -o` then `sha256sum`, `sync`" : "`curl -o` then `sha256sum`",
                     argv: ["/bin/sh", "-c", "curl -sS -o '\(out)' '\(url)' && sha256sum '\(out)'\(sync)"], reset: removeOut, check: digestCheck),
            ]
            if !durable {
                peers.append(Peer(name: "`curl -o /dev/null` (server check)", argv: ["curl", "-sS", "-o", "/dev/null", url]))
            }
            let s = try Alternation(context: context).run(peers)
            printPeers("On \(side): \(durable ? "durable peers (the SDK fsyncs before installing)" : "no disk, pure CPU efficiency") — \(base.path)", s)
            let (sdk, replace, curl, py, curlSha) = (s[0], s[1], s[2], s[3], s[4])
            var figures = [
                Figure.ratio("\(side): SDK ÷ \(curl.name), wall", sdk, curl, target: durable ? 1.0 : 1.05),
                Figure.ratio("\(side): SDK ÷ \(py.name), wall", sdk, py, target: 1.0),
                Figure.ratio("\(side): SDK ÷ \(py.name), CPU seconds", sdk, py, \.cpu, target: durable ? nil : 1.0),
                Figure.ratio("\(side): SDK ÷ \(curlSha.name), wall", sdk, curlSha, target: 0.5),
                Figure(name: "\(side): peak RSS growth of the SDK's process during the download", value: sdk.extraMax("growthMiB"), unit: "MiB", target: 64),
                Figure.ratio("\(side): SDK over an installed copy ÷ \(curl.name), wall", replace, curl, target: durable ? 1.0 : 1.05),
                Figure.ratio("\(side): SDK over an installed copy ÷ \(py.name), CPU seconds", replace, py, \.cpu, target: durable ? nil : 1.0),
                Figure.ratio("\(side): SDK over an installed copy ÷ SDK fresh, CPU seconds", replace, sdk, \.cpu, target: nil),
            ]
            if !durable {
                figures.append(Figure.ratio("server check: `curl -o /dev/null` ÷ `curl -o FILE` on tmpfs, wall (nginx's share)", s[5], curl, target: nil))
            }
            printTable("Download figures, \(side)", figures)
            try? FileManager.default.removeItem(at: dir)
        }

        try hashFigures(artifact, expected: expected, size: size)
    }

    /// Our SHA-256 of the artifact against `openssl dgst -sha256`.
    private func hashFigures(_ artifact: URL, expected: String, size: Int) throws {
        let hashCheck: (Child.Result) throws -> [String: Double] = { r in
            guard r.status == 0, r.output.contains(expected) else { throw BenchError("wrong digest") }
            return [:]
        }
        let h = try Alternation(context: context).run([
            Peer(name: "SDK's SHA-256 (`_hash`, 4 MiB reads)", argv: [context.me, "_hash", artifact.path], check: hashCheck),
            Peer(name: "`openssl dgst -sha256`", argv: ["openssl", "dgst", "-sha256", artifact.path], check: hashCheck),
        ])
        printPeers("SHA-256 of the \(context.sizeMiB) MiB file on tmpfs", h)
        printTable("Hash figures", [
            Figure(name: "SHA-256: our throughput ÷ `openssl dgst -sha256`", value: median(h[1].wall) / median(h[0].wall), unit: "×",
                   target: 0.9, comparison: .atLeast, note: String(format: "%.0f MB/s", Double(size) / median(h[0].wall) / 1e6)),
        ])
    }

    /// Puts an installed copy of `source` in `store` as `big.bin` unless one is there (the
    /// previous run's), so the next run replaces it.
    static func install(_ source: URL, into store: URL) throws {
        let installed = store.appendingPathComponent("big.bin")
        guard !FileManager.default.fileExists(atPath: installed.path) else { return }
        try FileManager.default.createDirectory(at: store, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source, to: installed)
    }
}
#endif

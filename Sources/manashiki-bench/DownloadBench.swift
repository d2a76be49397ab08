#if os(Linux)
import Foundation
import Manashiki
import ManashikiRegistry

/// Issue #4's figures: one large artifact, downloaded and verified by the SDK, against the
/// tools a user would otherwise use, all from the same loopback server in one run.
struct DownloadBench {
    static let key = "mk_pub_bench_AbCdEfGhIjKlMnOpQrSt01"
    static let pythonScript = """
    import hashlib, sys, urllib.request
    h = hashlib.sha256()
    with urllib.request.urlopen(sys.argv[1]) as r, open(sys.argv[2], "wb") as f:
        while True:
            b = r.read(1 << 20)
            if not b: break
            h.update(b); f.write(b)
    print(h.hexdigest())
    """

    var sizeMiB: Int
    var rounds: Int
    var workdir: URL

    func run() throws -> [Figure] {
        let size = sizeMiB << 20
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: Self.key)]
        catalog.add(model: RegistryModel(modelId: "big", version: "1.0.0", artifact: .generated(size: size, seed: 1), platforms: ["linux"]))
        var configuration = RegistryConfiguration()
        configuration.urlTTL = 3600
        configuration.cacheDirectory = workdir.appendingPathComponent("registry-cache")
        configuration.requestLogLimit = 1000
        log("starting the development registry with a \(sizeMiB) MiB artifact…")
        let registry = try DevelopmentRegistry.start(catalog: catalog, configuration: configuration)
        defer { registry.stop() }
        guard let url = registry.signedDownloadURL(modelId: "big", ttl: 3600)?.absoluteString else { throw BenchError("no URL") }
        let expected = registry.sha256(modelId: "big")
        let out = workdir.appendingPathComponent("out.bin").path
        let store = workdir.appendingPathComponent("store").path
        let artifact = try registry.artifactURL(modelId: "big").map(\.path) ?? { throw BenchError("no artifact file") }()
        let python = workdir.appendingPathComponent("fetch.py").path
        try Self.pythonScript.write(toFile: python, atomically: true, encoding: .utf8)
        let me = CommandLine.arguments[0]

        var ours: [Double] = [], curl: [Double] = [], curlSha: [Double] = [], py: [Double] = [], devnull: [Double] = []
        var growth: [Double] = [], ourHash: [Double] = [], openssl: [Double] = []
        for round in 1...rounds {
            log("round \(round)/\(rounds)")
            try? FileManager.default.removeItem(atPath: store)
            let o = try Child.run([me, "_download", registry.apiBaseURL.absoluteString, Self.key, store, "big"])
            guard o.status == 0, o.output.contains(expected) else { throw BenchError("our download failed: \(o.output)") }
            ours.append(o.seconds)
            growth.append(Double(Self.field("growthKiB", in: o.output) ?? 0) / 1024)

            try? FileManager.default.removeItem(atPath: out)
            curl.append(try check(Child.run(["curl", "-sS", "-o", out, url])).seconds)
            try? FileManager.default.removeItem(atPath: out)
            let cs = try check(Child.shell("curl -sS -o '\(out)' '\(url)' && sha256sum '\(out)'"))
            guard cs.output.hasPrefix(expected) else { throw BenchError("curl+sha256sum digest differs") }
            curlSha.append(cs.seconds)
            try? FileManager.default.removeItem(atPath: out)
            let p = try check(Child.run(["python3", python, url, out]))
            guard p.output.contains(expected) else { throw BenchError("python digest differs") }
            py.append(p.seconds)
            try? FileManager.default.removeItem(atPath: out)
            devnull.append(try check(Child.run(["curl", "-sS", "-o", "/dev/null", url])).seconds)

            let h = try check(Child.run([me, "_hash", artifact]))
            guard h.output.contains(expected) else { throw BenchError("our hash differs") }
            ourHash.append(h.seconds)
            openssl.append(try check(Child.run(["openssl", "dgst", "-sha256", artifact])).seconds)
        }
        try? FileManager.default.removeItem(atPath: out)
        try? FileManager.default.removeItem(atPath: store)

        let mo = median(ours), mc = median(curl)
        return [
            Figure(name: "download+verify ÷ `curl -o`", value: mo / mc, unit: "×", target: 1.0,
                   note: String(format: "%.2f s vs %.2f s", mo, mc)),
            Figure(name: "download+verify ÷ `curl -o` then `sha256sum`", value: mo / median(curlSha), unit: "×", target: 0.5,
                   note: String(format: "%.2f s", median(curlSha))),
            Figure(name: "download+verify ÷ Python urllib+hashlib script", value: mo / median(py), unit: "×", target: 1.0,
                   note: String(format: "%.2f s", median(py))),
            Figure(name: "peak RSS growth during the download", value: growth.max() ?? 0, unit: "MiB", target: 64),
            Figure(name: "SHA-256 of the file: our throughput ÷ `openssl dgst -sha256`", value: median(openssl) / median(ourHash),
                   unit: "×", target: 0.9, comparison: .atLeast,
                   note: String(format: "%.0f MB/s", Double(size) / median(ourHash) / 1e6)),
            Figure(name: "server check: `curl` to disk ÷ to /dev/null", value: mc / median(devnull), unit: "×", target: 3,
                   comparison: .atLeast, note: "the server is not the bottleneck when ≥ 3"),
        ]
    }

    private func check(_ r: Child.Result) throws -> Child.Result {
        guard r.status == 0 else { throw BenchError("a reference command failed (exit \(r.status))") }
        return r
    }

    static func field(_ name: String, in output: String) -> Int? {
        for part in output.split(whereSeparator: { $0 == " " || $0 == "\n" }) where part.hasPrefix(name + "=") {
            return Int(part.dropFirst(name.count + 1))
        }
        return nil
    }
}

/// Progress lines go to stderr so stdout stays a clean report.
func log(_ s: String) {
    FileHandle.standardError.write(Data("bench: \(s)\n".utf8))
}
#else
/// The benchmarks compare against Linux tools (nginx, sha256sum, /proc): Linux only.
@main
struct Bench {
    static func main() {
        print("manashiki-bench runs on Linux (it measures against nginx, curl, sha256sum and rclone there).")
    }
}
#endif

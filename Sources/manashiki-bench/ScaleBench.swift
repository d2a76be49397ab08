#if os(Linux)
import Foundation
import Manashiki
import ManashikiRegistry
import ManashikiSync
import ManashikiCore

/// Issue #8's figures: the whole agent at scale, side by side with the tools people would
/// use instead, all downloading from one nginx on loopback.
struct ScaleBench {
    static let key = "mk_pub_bench_AbCdEfGhIjKlMnOpQrSt01"
    var rounds: Int
    var workdir: URL
    var fleetCount = 16
    var fleetMiB = 64
    var noopModels = 2000
    var verifyGiB = 8
    var bigGiB = 4
    var plannerEntries = 10_000

    static let pythonPool = """
    import hashlib, sys, urllib.request
    from concurrent.futures import ThreadPoolExecutor
    def fetch(line):
        url, out, digest = line.split()
        h = hashlib.sha256()
        with urllib.request.urlopen(url) as r, open(out, "wb") as f:
            while True:
                b = r.read(1 << 20)
                if not b: break
                h.update(b); f.write(b)
        assert h.hexdigest() == digest, out
    with ThreadPoolExecutor(4) as pool:
        list(pool.map(fetch, open(sys.argv[1]).read().split("\\n")[:-1]))
    """

    // MARK: Fleet sync (1, 2, 5)

    func fleetSync() throws -> [Figure] {
        let dir = workdir.appendingPathComponent("fleet")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let ids = (0..<fleetCount).map { String(format: "m%02d", $0) }
        let (registry, nginx) = try startServers(dir, models: ids.enumerated().map { ($1, fleetMiB << 20, UInt64(100 + $0)) })
        defer { nginx.stop(); registry.stop() }
        let store = dir.appendingPathComponent("store")
        let manifest = try writeManifest(dir, registry: registry, store: store, ids: ids, concurrency: 4)

        let out = dir.appendingPathComponent("out")
        var lines: [String] = [], pairs: [String] = [], sums: [String] = []
        for id in ids {
            let url = nginx.origin + "/blobs/\(id)/1.0.0"
            lines.append("-o \(out.path)/\(id).bin \(url)")
            pairs.append("\(url) \(out.path)/\(id).bin \(registry.sha256(modelId: id))")
            sums.append("\(registry.sha256(modelId: id))  \(id).bin")
        }
        try (lines.joined(separator: "\n") + "\n").write(to: dir.appendingPathComponent("xargs.txt"), atomically: true, encoding: .utf8)
        try (pairs.joined(separator: "\n") + "\n").write(to: dir.appendingPathComponent("pairs.txt"), atomically: true, encoding: .utf8)
        try (sums.joined(separator: "\n") + "\n").write(to: dir.appendingPathComponent("SHA256SUMS"), atomically: true, encoding: .utf8)
        try Self.pythonPool.write(to: dir.appendingPathComponent("pool.py"), atomically: true, encoding: .utf8)
        let hasRclone = FileManager.default.isExecutableFile(atPath: "/usr/bin/rclone")
        if !hasRclone { log("rclone is not installed (apt-get install -y rclone): its figure is skipped") }

        var ours: [Double] = [], shell: [Double] = [], rclone: [Double] = [], python: [Double] = [], growth: [Double] = []
        let me = CommandLine.arguments[0]
        for round in 1...rounds {
            log("fleet sync round \(round)/\(rounds)")
            try? FileManager.default.removeItem(at: store)
            let o = try Child.run([me, "_sync", manifest.path, registry.storageBaseURL.absoluteString, nginx.origin],
                                  environment: ["MANASHIKI_API_KEY": Self.key])
            guard o.status == 0, o.output.contains("outcome=changed") else { throw BenchError("our sync failed: \(o.output)") }
            ours.append(o.seconds)
            growth.append(Double(DownloadBench.field("growthKiB", in: o.output) ?? 0) / 1024)

            try resetDir(out)
            let s = try Child.shell("xargs -P4 -L1 curl -sS < '\(dir.path)/xargs.txt' && cd '\(out.path)' && sha256sum --quiet -c '\(dir.path)/SHA256SUMS'")
            guard s.status == 0 else { throw BenchError("the curl pipeline failed") }
            shell.append(s.seconds)

            if hasRclone {
                try resetDir(out)
                let r = try Child.run(["rclone", "copy", "--http-url", nginx.origin + "/blobs/", ":http:", out.path,
                                       "--transfers", "4", "--checkers", "8"], environment: ["RCLONE_CONFIG": "/dev/null"])
                guard r.status == 0 else { throw BenchError("rclone failed") }
                rclone.append(r.seconds)
            }

            try resetDir(out)
            let p = try Child.run(["python3", dir.appendingPathComponent("pool.py").path, dir.appendingPathComponent("pairs.txt").path])
            guard p.status == 0 else { throw BenchError("the Python pool failed") }
            python.append(p.seconds)
        }
        try? FileManager.default.removeItem(at: out)
        let mo = median(ours)
        var figures = [
            Figure(name: "fresh sync of \(fleetCount)×\(fleetMiB) MiB ÷ `xargs -P4 curl` then `sha256sum -c`", value: mo / median(shell), unit: "×",
                   target: 0.6, note: String(format: "%.2f s vs %.2f s", mo, median(shell))),
        ]
        if !rclone.isEmpty {
            figures.append(Figure(name: "fresh sync ÷ `rclone copy --transfers 4` (no SHA-256)", value: mo / median(rclone), unit: "×",
                                  target: 1.0, note: String(format: "%.2f s", median(rclone))))
        }
        figures.append(Figure(name: "fresh sync ÷ Python pool of 4 (urllib + hashlib)", value: mo / median(python), unit: "×",
                              target: 1.0, note: String(format: "%.2f s", median(python))))
        figures.append(Figure(name: "peak RSS growth during the fleet sync", value: growth.max() ?? 0, unit: "MiB", target: 64))
        return figures
    }

    // MARK: One big artifact (5)

    func bigSync() throws -> [Figure] {
        let dir = workdir.appendingPathComponent("big")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let (registry, nginx) = try startServers(dir, models: [("big", bigGiB << 30, 77)])
        defer { nginx.stop(); registry.stop() }
        let store = dir.appendingPathComponent("store")
        let manifest = try writeManifest(dir, registry: registry, store: store, ids: ["big"], concurrency: 1)
        log("single \(bigGiB) GiB artifact sync")
        let o = try Child.run([CommandLine.arguments[0], "_sync", manifest.path, registry.storageBaseURL.absoluteString, nginx.origin],
                              environment: ["MANASHIKI_API_KEY": Self.key])
        guard o.status == 0 else { throw BenchError("the big sync failed: \(o.output)") }
        try? FileManager.default.removeItem(at: dir)
        return [Figure(name: "peak RSS growth during a \(bigGiB) GiB single-artifact sync", value: Double(DownloadBench.field("growthKiB", in: o.output) ?? 0) / 1024,
                       unit: "MiB", target: 64, note: String(format: "%.1f s", o.seconds))]
    }

    // MARK: No-op sync of many models (3)

    func noopSync() throws -> [Figure] {
        let dir = workdir.appendingPathComponent("noop")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let ids = (0..<noopModels).map { String(format: "tiny-%05d", $0) }
        let registry = try startRegistry(dir, models: ids.enumerated().map { ($1, 1024, UInt64($0)) })
        defer { registry.stop() }
        let store = dir.appendingPathComponent("store")
        let manifest = try writeManifest(dir, registry: registry, store: store, ids: ids, concurrency: 8)
        let me = CommandLine.arguments[0]
        log("installing \(noopModels) models for the no-op figure")
        let first = try Child.run([me, "_sync", manifest.path], environment: ["MANASHIKI_API_KEY": Self.key])
        guard first.status == 0, first.output.contains("outcome=changed") else { throw BenchError("the first sync failed: \(first.output)") }
        var times: [Double] = [], requests: [Int] = [], hashed: [Int] = []
        for _ in 1...rounds {
            registry.clearRequestLog()
            let o = try Child.run([me, "_sync", manifest.path], environment: ["MANASHIKI_API_KEY": Self.key])
            guard o.status == 0, o.output.contains("outcome=inSync") else { throw BenchError("the no-op sync was not in sync: \(o.output)") }
            times.append(o.seconds)
            requests.append(registry.requestLog().count)
            hashed.append(DownloadBench.field("hashed", in: o.output) ?? -1)
        }
        try? FileManager.default.removeItem(at: dir)
        return [
            Figure(name: "no-op sync of \(noopModels) installed models: wall time (whole process)", value: median(times), unit: "s", target: 0.5),
            Figure(name: "no-op sync: API requests", value: Double(requests.max() ?? 0), unit: "requests", target: 1),
            Figure(name: "no-op sync: bytes re-hashed", value: Double(hashed.max() ?? 0), unit: "bytes", target: 0),
        ]
    }

    // MARK: Verify (4)

    func verify() throws -> [Figure] {
        let dir = workdir.appendingPathComponent("verify")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let count = verifyGiB * 4
        let ids = (0..<count).map { String(format: "v%02d", $0) }
        let (registry, nginx) = try startServers(dir, models: ids.enumerated().map { ($1, 256 << 20, UInt64(500 + $0)) })
        defer { nginx.stop(); registry.stop() }
        let store = dir.appendingPathComponent("store")
        let manifest = try writeManifest(dir, registry: registry, store: store, ids: ids, concurrency: 4)
        log("installing \(verifyGiB) GiB for the verify figure")
        let me = CommandLine.arguments[0]
        let first = try Child.run([me, "_sync", manifest.path, registry.storageBaseURL.absoluteString, nginx.origin],
                                  environment: ["MANASHIKI_API_KEY": Self.key])
        guard first.status == 0 else { throw BenchError("installing failed: \(first.output)") }
        let files = ids.map { store.appendingPathComponent("\($0).bin").path }
        let quoted = files.map { "'\($0)'" }.joined(separator: " ")
        var ours: [Double] = [], sha: [Double] = [], openssl: [Double] = []
        for round in 1...rounds {
            log("verify round \(round)/\(rounds)")
            let o = try Child.run([me, "_verify", store.path])
            guard o.output.contains("healthy=true") else { throw BenchError("verify found problems: \(o.output)") }
            ours.append(o.seconds)
            sha.append(try Child.shell("sha256sum \(quoted) > /dev/null").seconds)
            openssl.append(try Child.shell("for f in \(quoted); do openssl dgst -sha256 \"$f\" > /dev/null; done").seconds)
        }
        try? FileManager.default.removeItem(at: dir)
        let bytes = Double(verifyGiB) * Double(1 << 30)
        return [
            Figure(name: "`verify` of \(verifyGiB) GiB: throughput ÷ `sha256sum`", value: median(sha) / median(ours), unit: "×", target: 2,
                   comparison: .atLeast, note: String(format: "%.0f MB/s", bytes / median(ours) / 1e6)),
            Figure(name: "`verify`: throughput ÷ `openssl dgst -sha256` one file at a time", value: median(openssl) / median(ours), unit: "×",
                   target: 1.5, comparison: .atLeast),
        ]
    }

    // MARK: Planner and state file (6)

    func planner() throws -> [Figure] {
        let n = plannerEntries
        let dir = workdir.appendingPathComponent("planner")
        try? FileManager.default.removeItem(at: dir)
        let layout = StoreLayout(directory: dir)
        try layout.prepare()
        var models: [String: StoreState.Installed] = [:]
        var catalog: [ModelEntry] = []
        var files: [String: StoreSnapshot.File] = [:]
        for i in 0..<n {
            let id = String(format: "model-%05d", i)
            let sha = SHA256Hasher.hash(Data(id.utf8)).hex
            let identity = FileIdentity(size: 1000, mtimeNanoseconds: 1, inode: UInt64(i + 1))
            models[id] = StoreState.Installed(version: "1.0.0", sha256: sha, size: 1000, identity: identity)
            catalog.append(ModelEntry(modelId: id, version: "1.0.0", size: 1000, sha256: sha))
            files[id] = StoreSnapshot.File(identity: identity)
        }
        let state = StoreState(models: models)
        try StateFile.write(state, to: layout)
        let json = #"{"schemaVersion": 1, "registry": {"baseURL": "http://127.0.0.1:1"}, "store": {"directory": "\#(dir.path)"}, "models": ["# +
            catalog.map { #"{"id": "\#($0.modelId)"}"# }.joined(separator: ",") + "]}"
        let manifest = try Manifest.decode(Data(json.utf8))
        var loads: [Double] = [], plans: [Double] = []
        for _ in 1...max(rounds, 3) {
            loads.append(try timed {
                guard case .loaded(let s) = StateFile.read(layout), s.models.count == n else { throw BenchError("state did not load") }
            })
            let input = PlanInput(manifest: manifest, device: .current, snapshot: StoreSnapshot(state: state, files: files), catalog: catalog)
            plans.append(try timed {
                let plan = Planner.plan(input)
                guard plan.items.count == n, !plan.changesStore else { throw BenchError("unexpected plan") }
            })
        }
        try? FileManager.default.removeItem(at: dir)
        return [
            Figure(name: "plan of \(n) manifest entries", value: median(plans), unit: "s", target: 0.2),
            Figure(name: "state file load with \(n) entries", value: median(loads), unit: "s", target: 0.2),
        ]
    }

    // MARK: Helpers

    private func timed(_ body: () throws -> Void) throws -> Double {
        let start = DispatchTime.now()
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    private func resetDir(_ url: URL) throws {
        try? FileManager.default.removeItem(at: url)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    private func startRegistry(_ dir: URL, models: [(String, Int, UInt64)]) throws -> DevelopmentRegistry {
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: Self.key)]
        for (id, size, seed) in models {
            catalog.add(model: RegistryModel(modelId: id, version: "1.0.0", artifact: .generated(size: size, seed: seed), platforms: ["linux"]))
        }
        var configuration = RegistryConfiguration()
        configuration.urlTTL = 3600
        configuration.cacheDirectory = workdir.appendingPathComponent("registry-cache")
        configuration.requestLogLimit = 100_000
        return try DevelopmentRegistry.start(catalog: catalog, configuration: configuration)
    }

    /// The registry (for the API) and nginx serving the same blobs at the same paths.
    private func startServers(_ dir: URL, models: [(String, Int, UInt64)]) throws -> (DevelopmentRegistry, Nginx) {
        let registry = try startRegistry(dir, models: models)
        let www = dir.appendingPathComponent("www/blobs")
        for (id, _, _) in models {
            let target = www.appendingPathComponent(id)
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            guard let artifact = registry.artifactURL(modelId: id) else { throw BenchError("no artifact for \(id)") }
            try FileManager.default.linkItem(at: artifact, to: target.appendingPathComponent("1.0.0"))
        }
        let nginx = try Nginx(root: dir.appendingPathComponent("www"), workdir: dir)
        return (registry, nginx)
    }

    private func writeManifest(_ dir: URL, registry: DevelopmentRegistry, store: URL, ids: [String], concurrency: Int) throws -> URL {
        let json = """
        {"schemaVersion": 1,
         "registry": {"baseURL": "\(registry.apiBaseURL.absoluteString)", "apiKey": {"env": "MANASHIKI_API_KEY"}},
         "store": {"directory": "\(store.path)", "concurrency": \(concurrency)},
         "policies": {"checkCompatibility": false},
         "models": [\(ids.map { #"{"id": "\#($0)"}"# }.joined(separator: ", "))]}
        """
        let url = dir.appendingPathComponent("manashiki.json")
        try json.write(to: url, atomically: true, encoding: .utf8)
        return url
    }
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

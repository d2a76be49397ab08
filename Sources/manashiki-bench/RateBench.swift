#if os(Linux)
import Foundation
import ManashikiRegistry

/// Issue #17's bandwidth figures: `sync --max-rate R` with four downloads at once (one
/// limiter shared by all of them), at 1, 10 and 100 MiB/s. The rate is the bytes the agent
/// downloaded over its own run time (`--json` summary), which must be within 10 % of R.
/// Stores are on the tmpfs side so the disk never is the limit.
struct RateBench {
    static let suite = BenchSuite(name: "rate", summary: "--max-rate 1M/10M/100M with 4 downloads at once: achieved rate within 10 %") {
        try RateBench(context: $0).run()
    }

    static let key = "mk_pub_rate_AbCdEfGhIjKlMnOpQrSt01"
    let context: BenchContext
    /// Limits measured, MiB/s.
    var ratesMiB = [1, 10, 100]
    /// Downloads at once.
    var concurrency = 4
    /// Seconds each run should take at its limit.
    var secondsPerRun = 8.0

    func run() throws {
        let scratch = try context.tmpfs()
        var figures: [Figure] = []
        for rate in ratesMiB {
            // Four artifacts that together take `secondsPerRun` at the limit.
            let size = Int(Double(rate << 20) * secondsPerRun) / concurrency
            let ids = (0..<concurrency).map { "rate-\(rate)-\($0)" }
            var catalog = RegistryCatalog()
            catalog.keys = [RegistryKey(secret: Self.key)]
            for (i, id) in ids.enumerated() {
                catalog.add(model: RegistryModel(modelId: id, version: "1.0.0", artifact: .generated(size: size, seed: UInt64(900 + i)), platforms: ["linux"]))
            }
            var configuration = RegistryConfiguration()
            configuration.cacheDirectory = context.disk.appendingPathComponent("source/rate-cache")
            let registry = try DevelopmentRegistry.start(catalog: catalog, configuration: configuration)
            defer { registry.stop() }
            let dir = try context.freshDirectory(scratch.url, "rate-\(rate)")
            defer { try? FileManager.default.removeItem(at: dir) }
            let manifest = dir.appendingPathComponent("manashiki.json")
            try """
            {"schemaVersion": 1, "registry": {"baseURL": "\(registry.apiBaseURL.absoluteString)"},
             "store": {"directory": "store", "concurrency": \(concurrency)}, "policies": {"checkCompatibility": false},
             "models": [\(ids.map { #"{"id": "\#($0)"}"# }.joined(separator: ", "))]}
            """.write(to: manifest, atomically: true, encoding: .utf8)
            log("rate: \(concurrency) × \(size >> 10) KiB at --max-rate \(rate)M")
            let r = try Child.run([context.me, "_agent", "sync", "--json", "--manifest", manifest.path, "--max-rate", "\(rate)M"],
                                  environment: ["MANASHIKI_API_KEY": Self.key])
            guard r.status == 0, let summary = r.output.split(separator: "\n").last,
                  let json = try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any],
                  let bytes = json["bytesDownloaded"] as? Double ?? (json["bytesDownloaded"] as? Int).map(Double.init),
                  let seconds = json["durationSeconds"] as? Double, seconds > 0 else {
                throw BenchError("the rate-limited sync failed: \(r.output.suffix(500))")
            }
            let achieved = bytes / seconds / Double(1 << 20)
            figures.append(Figure(name: "`--max-rate \(rate)M`, \(concurrency) downloads at once: achieved ÷ limit", value: achieved / Double(rate), unit: "×",
                                  target: 0.9, comparison: .atLeast,
                                  note: String(format: "%.2f MiB/s, %.0f MiB in %.2f s", achieved, bytes / Double(1 << 20), seconds)))
            figures.append(Figure(name: "`--max-rate \(rate)M`: achieved ÷ limit, upper bound", value: achieved / Double(rate), unit: "×", target: 1.1))
        }
        printTable("Bandwidth limit shared by concurrent downloads (stores on tmpfs)", figures)
    }
}
#endif

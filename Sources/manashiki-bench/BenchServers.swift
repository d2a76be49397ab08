#if os(Linux)
import Foundation
import ManashikiRegistry

/// The servers of a suite: the development registry for the API, and nginx serving the same
/// artifacts at the same paths (`/blobs/<id>/1.0.0`), which every tool downloads from.
struct BenchServers {
    static let key = "mk_pub_bench_AbCdEfGhIjKlMnOpQrSt01"

    let registry: DevelopmentRegistry
    let nginx: Nginx?

    /// Starts the registry with generated artifacts `(id, size, seed)` cached under `source`;
    /// with `nginx`, also nginx serving them from `source/www` (shaped by `options`, its files
    /// under `source/<label>`).
    init(source: URL, models: [(String, Int, UInt64)], nginx withNginx: Bool = true,
         options: Nginx.Options = Nginx.Options(), label: String = "nginx") throws {
        var catalog = RegistryCatalog()
        catalog.keys = [RegistryKey(secret: Self.key)]
        for (id, size, seed) in models {
            catalog.add(model: RegistryModel(modelId: id, version: "1.0.0", artifact: .generated(size: size, seed: seed), platforms: ["linux"]))
        }
        var configuration = RegistryConfiguration()
        configuration.urlTTL = 3600
        configuration.cacheDirectory = source.appendingPathComponent("registry-cache")
        configuration.requestLogLimit = 100_000
        log("starting the development registry (\(models.count) artifacts under \(source.path))…")
        registry = try DevelopmentRegistry.start(catalog: catalog, configuration: configuration)
        guard withNginx else { nginx = nil; return }
        let www = source.appendingPathComponent("www")
        for (id, _, _) in models {
            let target = www.appendingPathComponent("blobs/\(id)")
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
            guard let artifact = registry.artifactURL(modelId: id) else { throw BenchError("no artifact for \(id)") }
            try? FileManager.default.removeItem(at: target.appendingPathComponent("1.0.0"))
            try FileManager.default.linkItem(at: artifact, to: target.appendingPathComponent("1.0.0"))
        }
        let nginxDir = source.appendingPathComponent(label)
        try FileManager.default.createDirectory(at: nginxDir, withIntermediateDirectories: true)
        nginx = try Nginx(root: www, workdir: nginxDir, options: options)
    }

    /// Makes the registry's `/api/download` answer hand out nginx's URL of each artifact as
    /// its signed URL, so that a client that cannot be rewired (the `manashiki-sync` command
    /// line, the SDK with its own default transport) downloads from nginx like every peer.
    func handOutNginxURLs(_ ids: [String]) {
        for id in ids {
            registry.setFault(.downloadURL(.url(blobURL(id))), modelId: id, endpoint: .download)
        }
    }

    func stop() {
        nginx?.stop()
        registry.stop()
    }

    /// nginx's URL of an artifact.
    func blobURL(_ id: String) -> String { (nginx?.origin ?? "") + "/blobs/\(id)/1.0.0" }

    /// The `_download`/`_sync` arguments that send storage requests to nginx.
    var rewrite: [String] {
        guard let nginx else { return [] }
        return [registry.storageBaseURL.absoluteString, nginx.origin]
    }

    /// A sync manifest for `ids` into `store`.
    func writeManifest(_ dir: URL, store: URL, ids: [String], concurrency: Int) throws -> URL {
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

/// The value of `name=…` in a child's output.
func field(_ name: String, in output: String) -> Int? {
    for part in output.split(whereSeparator: { $0 == " " || $0 == "\n" }) where part.hasPrefix(name + "=") {
        return Int(part.dropFirst(name.count + 1))
    }
    return nil
}

/// Progress lines go to stderr so stdout stays a clean report.
func log(_ s: String) {
    FileHandle.standardError.write(Data("bench: \(s)\n".utf8))
}
#endif

import Foundation
import ManashikiSync

/// A manifest that cannot be used, as stderr lines and JSON problems.
package struct ConfigurationError: Error, Sendable {
    /// One line per problem (`manifest.json: models[0].version: …`).
    package let lines: [String]
    /// The manifest's problems (path, message, hint), when it is the manifest that is wrong.
    package let problems: [ManifestProblem]
}

/// Loads the manifest the options name and applies the command-line overrides.
package enum ManifestLoader {
    /// The manifest file's URL.
    package static func url(_ global: GlobalOptions, currentDirectory: URL) -> URL {
        PathResolver.resolve(global.manifestPath, against: currentDirectory)
    }

    /// The lock file's URL: `--lock-file`, else `manashiki.lock.json` beside the manifest.
    package static func lockURL(_ global: GlobalOptions, currentDirectory: URL) -> URL {
        if let path = global.lockFile { return PathResolver.resolve(path, against: currentDirectory) }
        return LockFile.url(besideManifest: url(global, currentDirectory: currentDirectory))
    }

    /// Loads, validates and overrides (`--store`, `--concurrency`, `--max-delete`, `--no-prune`).
    /// - Throws: `ConfigurationError`.
    package static func load(_ global: GlobalOptions, sync: SyncOptions = SyncOptions(), currentDirectory: URL) throws(ConfigurationError) -> Manifest {
        let file = url(global, currentDirectory: currentDirectory)
        guard FileManager.default.fileExists(atPath: file.path) else {
            let hint = global.manifestGiven ? "check the path" : "pass --manifest PATH, or create one: \(Manifest.smallestManifestHint)"
            throw ConfigurationError(lines: ["no manifest at \(file.path) — \(hint)"],
                                     problems: [ManifestProblem(path: "", message: "no manifest at \(file.path)", hint: hint)])
        }
        var manifest: Manifest
        do {
            manifest = try Manifest.load(contentsOf: file)
        } catch let error as ManifestError {
            throw ConfigurationError(lines: error.problems.map { "\(file.lastPathComponent): \($0.description)" }, problems: error.problems)
        } catch {
            throw ConfigurationError(lines: ["cannot read the manifest \(file.path): \(error.localizedDescription)"],
                                     problems: [ManifestProblem(path: "", message: "cannot read the manifest")])
        }
        if let store = global.storeDirectory {
            manifest.store.directory = PathResolver.resolve(store, against: currentDirectory).path
        }
        if let owner = global.owner { manifest.store.owner = owner }
        if let n = sync.concurrency { manifest.store.concurrency = n }
        if let n = sync.maxDeletes { manifest.store.prune.maxDeletes = n }
        if sync.noPrune { manifest.store.prune.mode = .off }
        if let rate = sync.maxRate { manifest.policies.maxBytesPerSecond = Int(rate) }
        if let caBundle = global.caBundle {
            let path = PathResolver.resolve(caBundle, against: currentDirectory).path
            manifest.registry.caBundle = path
            do { _ = try manifest.tlsTrust() } catch {
                let problem = ManifestProblem(path: "", message: "--ca-bundle \(error.problems.first?.message ?? path)",
                                              hint: "pass a PEM file holding the CA certificate(s) to trust (-----BEGIN CERTIFICATE----- blocks)")
                throw ConfigurationError(lines: [problem.description], problems: [problem])
            }
        }
        return manifest
    }

    /// The store directory for offline commands (`verify`, `status`): `--store`, else the
    /// manifest's. The manifest is optional when `--store` is given and `--manifest` is not.
    /// - Throws: `ConfigurationError`.
    package static func store(_ global: GlobalOptions, currentDirectory: URL) throws(ConfigurationError) -> (URL, Manifest?) {
        let file = url(global, currentDirectory: currentDirectory)
        if let store = global.storeDirectory, !global.manifestGiven, !FileManager.default.fileExists(atPath: file.path) {
            return (PathResolver.resolve(store, against: currentDirectory), nil)
        }
        let manifest = try load(global, currentDirectory: currentDirectory)
        return (manifest.storeDirectory, manifest)
    }
}

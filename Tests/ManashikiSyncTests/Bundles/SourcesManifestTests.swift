import Foundation
import Manashiki
import Testing
@testable import ManashikiSync

@Suite("Manifest sources and fallback")
struct SourcesManifestTests {
    static func manifest(_ extra: String) throws -> Manifest {
        try Manifest.decode(Data(#"{"schemaVersion": 1, \#(extra) "models": []}"#.utf8))
    }

    @Test("bundle and mirror sources are read in order, with private and allowHTTP")
    func valid() throws {
        let m = try Self.manifest(#""sources": [{"bundle": "bundles/usb"}, {"mirror": "https://cache.example/b/", "private": true}, {"mirror": "http://10.0.0.5/b", "allowHTTP": true}, {"mirror": "http://127.0.0.1:8080"}], "fallback": "none","#)
        #expect(m.sources.count == 4)
        #expect(m.sources[0] == ArtifactSource(.bundle("bundles/usb")))
        #expect(m.sources[1].servesPrivate && m.sources[1].isNetwork)
        #expect(m.sources[2].allowsPlainHTTP)
        #expect(m.fallback == .none)
        #expect(ArtifactSource.blobURL(URL(string: "https://cache.example/b/")!, "ab").absoluteString == "https://cache.example/b/blobs/sha256/ab")
        #expect(try Self.manifest("").fallback == .registry)
    }

    @Test("every bad source is reported with its JSON path and a fix, credentials never shown", arguments: [
        (#""sources": [{"mirror": "https://user:pw-s3cret@cache.example/b"}],"#, "sources[0].mirror", "contains credentials"),
        (#""sources": [{"mirror": "https://cache.example/b?token=s3cret"}],"#, "sources[0].mirror", "query or fragment"),
        (#""sources": [{"mirror": "ftp://cache.example/b"}],"#, "sources[0].mirror", "not an http(s) URL"),
        (#""sources": [{"mirror": "http://cache.example/b"}],"#, "sources[0].mirror", "plain http"),
        (#""sources": [{"gcs": "bucket"}],"#, "sources[0].gcs", "unknown source kind"),
        (#""sources": [{"bundle": "/a", "privat": true}],"#, "sources[0].privat", "unknown key"),
        (#""sources": [{}],"#, "sources[0]", "names no source kind"),
        (#""sources": [{"bundle": ""}],"#, "sources[0].bundle", "non-empty string"),
        (#""sources": [{"bundle": "/a", "allowHTTP": true}],"#, "sources[0].allowHTTP", "mirrors only"),
        (#""sources": {"bundle": "/a"},"#, "sources", "must be an array"),
        (#""fallback": true,"#, "fallback", "\"registry\" or \"none\""),
    ])
    func invalid(extra: String, path: String, message: String) {
        #expect {
            try Self.manifest(extra)
        } throws: { error in
            guard let e = error as? ManifestError else { return false }
            let problem = e.problems.first { $0.path == path }
            let text = e.problems.map(\.description).joined(separator: "\n")
            return problem?.message.contains(message) == true && problem?.hint?.isEmpty == false && !text.contains("s3cret")
        }
    }

    @Test("--from: a path is a bundle resolved against the directory, a URL a mirror; credentials refused")
    func commandLine() throws {
        let base = URL(fileURLWithPath: "/srv/build")
        #expect(try ArtifactSource(commandLine: "bundle", relativeTo: base).kind == .bundle("/srv/build/bundle"))
        #expect(try ArtifactSource(commandLine: "https://m.example/x", relativeTo: base).kind == .mirror(URL(string: "https://m.example/x")!))
        #expect(throws: ArtifactFileError.self) { try ArtifactSource(commandLine: "https://a:b@m.example/x", relativeTo: base) }
    }

    @Test("offline catalog: the newest artifact in any index that satisfies the version and digest pins")
    func offlineCatalog() throws {
        func artifact(_ id: String, _ v: String, _ c: Character) -> PinnedArtifact {
            PinnedArtifact(modelId: id, version: v, size: 1, sha256: String(repeating: c, count: 64))
        }
        let a = BundleIndex(models: [artifact("m", "1.2.0", "a"), artifact("m", "2.0.0", "b")])
        let b = BundleIndex(models: [artifact("m", "1.3.0", "c"), artifact("n", "1.0.0", "d")])
        var manifest = Manifest(models: [ModelSpec(id: "m", version: try VersionRequirement(parsing: "^1.2")), ModelSpec(id: "n"), ModelSpec(id: "o")])
        #expect(SourcePlanning.offlineCatalog(manifest, [a, b]).map(\.version) == ["1.3.0", "1.0.0"])
        manifest.models[0].sha256 = String(repeating: "a", count: 64)
        #expect(SourcePlanning.offlineCatalog(manifest, [a, b]).map(\.version) == ["1.2.0", "1.0.0"])
    }

    @Test("lock drift: models added, removed or no longer satisfying the manifest; artifacts the catalog no longer serves")
    func drift() throws {
        let sha = String(repeating: "a", count: 64)
        let lock = LockFile(models: [PinnedArtifact(modelId: "a", version: "1.0.0", size: 1, sha256: sha),
                                     PinnedArtifact(modelId: "gone", version: "1.0.0", size: 1, sha256: sha)])
        let manifest = Manifest(models: [ModelSpec(id: "a", version: try VersionRequirement(parsing: "^2.0")), ModelSpec(id: "new")])
        let differences = LockDrift.manifestDifferences(lock, manifest).map(\.description)
        #expect(differences.count == 3)
        #expect(differences.contains { $0.hasPrefix("a: the locked 1.0.0 no longer satisfies") })
        #expect(differences.contains { $0.hasPrefix("new: is in the manifest but not in the lock") })
        #expect(differences.contains { $0.hasPrefix("gone: is locked but no longer in the manifest") })
        let catalog = [ModelEntry(modelId: "a", version: "1.1.0", size: 1, sha256: String(repeating: "b", count: 64))]
        let served = LockDrift.catalogDifferences(lock, catalog).map(\.description)
        #expect(served.count == 2)
        #expect(served.contains { $0.hasPrefix("a: the registry now serves 1.1.0") })
        #expect(served.contains { $0.hasPrefix("gone: the registry's catalog no longer lists it") })
        #expect(LockDrift.catalogDifferences(lock, [ModelEntry(modelId: "a", version: "1.0.0", size: 1, sha256: sha),
                                                    ModelEntry(modelId: "gone", version: "1.0.0", size: 1, sha256: sha)]).isEmpty)
    }
}

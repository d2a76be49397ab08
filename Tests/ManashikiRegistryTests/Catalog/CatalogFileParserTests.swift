import Foundation
import ManashikiTestSupport
import Testing
@testable import ManashikiRegistry

@Suite("Catalog files")
struct CatalogFileParserTests {
    /// Writes `json` as catalog.json in a fresh directory.
    static func directory(_ json: String) throws -> ScratchDirectory {
        let dir = ScratchDirectory("catalog")
        try Data(json.utf8).write(to: dir.file("catalog.json"))
        return dir
    }

    static func error(_ json: String) throws -> CatalogFileError? {
        let dir = try directory(json)
        do {
            _ = try RegistryCatalog.load(directory: dir.url)
            return nil
        } catch let error as CatalogFileError {
            return error
        }
    }

    @Test("the demo catalog loads: a private, a deprecated, a sunset model and a pending version")
    func demoCatalog() throws {
        let catalog = try RegistryCatalog.load(directory: Fixture.examplesDirectory)
        #expect(catalog.models.contains { $0.visibility == "private" })
        #expect(catalog.models.contains { $0.status == "deprecated" })
        #expect(catalog.models.contains { $0.status == "sunset" })
        #expect(Set(catalog.models.flatMap(\.platforms)).count >= 5)
        #expect(catalog.pending.count == 1)
        #expect(catalog.keys.map(\.kind).contains(.legacy))
    }

    @Test("the demo catalog serves over HTTP with computed sizes and digests")
    func demoServes() async throws {
        let registry = try DevelopmentRegistry.start(catalogDirectory: Fixture.examplesDirectory)
        defer { registry.stop() }
        let response = try await HTTPClient.fetch(registry.api("/api/models"), key: "mk_pub_demo_0123456789abcdefghij")
        let models = try #require(JSON.object(response.body)?["models"] as? [[String: Any]])
        #expect(models.count == 5)
        for model in models {
            let id = try #require(model["modelId"] as? String)
            #expect(model["sha256"] as? String == registry.sha256(modelId: id))
            #expect(model["size"] as? Int == registry.size(modelId: id))
        }
    }

    @Test("invalid JSON names the file and says how to find the problem")
    func invalidJSON() throws {
        let error = try #require(try Self.error("{\"models\": [,]}"))
        #expect(error.file.hasSuffix("catalog.json"))
        #expect(error.jsonPath == "$.models[0]")
        #expect(error.description.contains("Fix:"))
    }

    @Test("a trailing comma or a duplicate key is refused with its JSON path (the strict parser of the manifest)")
    func strictJSON() throws {
        let comma = try #require(try Self.error(#"{"models": [], "keys": [{"secret": "x"},]}"#))
        #expect(comma.jsonPath == "$.keys")
        #expect(comma.problem.contains("trailing comma"))
        let duplicate = try #require(try Self.error(#"{"models": [{"modelId": "a", "modelId": "b"}]}"#))
        #expect(duplicate.jsonPath == "$.models[0]")
        #expect(duplicate.problem.contains(#"duplicate key "modelId""#))
    }

    @Test("problems inside records name the JSON path, the problem and the fix")
    func paths() throws {
        let artifact = #""artifact": {"generated": {"size": 10, "seed": 1}}"#
        let cases: [(String, String)] = [
            (#"{"models": [{"modelId": "a", "version": "1", \#(artifact)}, {"modelId": "B", "version": "1", \#(artifact)}]}"#, "$.models[1].modelId"),
            (#"{"models": [{"modelId": "a", "version": "1", "artifact": {"generated": {"size": "1MB", "seed": 1}}}]}"#, "$.models[0].artifact.generated.size"),
            (#"{"models": [{"modelId": "a", "version": "1", \#(artifact), "visiblity": "public"}]}"#, "$.models[0].visiblity"),
            (#"{"models": [{"modelId": "a", "version": "1", \#(artifact), "compatibility": {"platforms": ["ios", "amiga"]}}]}"#, "$.models[0].compatibility.platforms[1]"),
            (#"{"models": [{"modelId": "a", "version": "1", "artifact": {"file": "missing.bin"}}]}"#, "$.models[0].artifact.file"),
            (#"{"keys": [{"secret": "pk_test_123"}]}"#, "$.keys[0].secret"),
            (#"{"faults": [{"endpoint": "storage", "type": "status"}]}"#, "$.faults[0].status"),
            (#"{"modles": []}"#, "$.modles"),
            (#"{"models": [{"modelId": "a", "version": "1", \#(artifact)}, {"modelId": "a", "version": "2", \#(artifact)}]}"#, "$.models[1].modelId"),
        ]
        for (json, path) in cases {
            let error = try #require(try Self.error(json), "\(json)")
            #expect(error.jsonPath == path, "\(json)")
            #expect(!error.problem.isEmpty)
            #expect(!error.fix.isEmpty)
        }
    }

    @Test("file artifacts resolve relative to the catalog file, and faults load")
    func fileArtifacts() throws {
        let dir = try Self.directory(#"""
        {"keys": [{"secret": "mk_pub_acme_0123456789abcdefghij"}],
         "models": [{"modelId": "f", "version": "1", "artifact": {"file": "f.bin"}, "extraFields": {"future": 1}}],
         "faults": [{"endpoint": "storage", "modelId": "f", "type": "status", "status": 503, "count": 2}]}
        """#)
        try Data("file bytes".utf8).write(to: dir.file("f.bin"))
        let catalog = try RegistryCatalog.load(directory: dir.url)
        #expect(catalog.faults == [RegistryFaultRule(endpoint: .storage, modelId: "f", fault: .status(503, count: 2))])
        #expect(catalog.models.first?.extraFields == ["future": 1])
        let registry = try DevelopmentRegistry.start(catalog: catalog)
        defer { registry.stop() }
        #expect(registry.artifactBytes(modelId: "f") == Data("file bytes".utf8))
    }
}

import Testing
import Foundation
@testable import ManashikiSync

@Suite("Example manifests")
struct ExampleManifestTests {
    static let examples = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("examples")

    @Test("every example manifest validates", arguments: ["fleet.json", "app-restore.json", "image-provisioning.json", "oci-registry.json", "phone.json", "server.json"])
    func validates(_ name: String) throws {
        let manifest = try Manifest.load(contentsOf: Self.examples.appendingPathComponent("manifests/\(name)"))
        #expect(!manifest.models.isEmpty)
    }

    @Test("the examples directory holds no unvalidated manifest")
    func noOthers() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.examples.appendingPathComponent("manifests").path)
        #expect(Set(names.filter { $0.hasSuffix(".json") }) == ["fleet.json", "app-restore.json", "image-provisioning.json", "oci-registry.json", "phone.json", "server.json"])
    }

    @Test("the JSON Schema names exactly the keys the validator accepts")
    func schemaMatchesValidator() throws {
        let data = try Data(contentsOf: Self.examples.appendingPathComponent("manifest.schema.json"))
        let schema = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        func keys(_ object: [String: Any]?) -> Set<String> { Set((object?["properties"] as? [String: Any])?.keys.map { $0 } ?? []) }
        let props = try #require(schema["properties"] as? [String: Any])
        #expect(keys(schema) == Set(ManifestValidator.rootKeys))
        #expect(keys(props["registry"] as? [String: Any]) == Set(ManifestValidator.registryKeys))
        #expect(keys(props["store"] as? [String: Any]) == Set(ManifestValidator.storeKeys))
        #expect(keys(props["device"] as? [String: Any]) == Set(ManifestValidator.deviceKeys))
        #expect(keys(props["policies"] as? [String: Any]) == Set(ManifestValidator.policyKeys))
        let trust = props["trust"] as? [String: Any]
        #expect(keys(trust) == Set(ManifestValidator.trustKeys))
        #expect(keys((trust?["properties"] as? [String: Any])?["modelSigning"] as? [String: Any]) == Set(ManifestValidator.modelSigningKeys))
        let defs = try #require(schema["$defs"] as? [String: Any])
        #expect(keys(defs["model"] as? [String: Any]) == Set(ManifestValidator.modelKeys))
        #expect(keys(defs["source"] as? [String: Any]) == Set(ArtifactSourceParser.keys))
    }
}

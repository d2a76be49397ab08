import Foundation
import ManashikiTestSupport
import Testing

/// The privacy manifests reach the build as resources, byte for byte, and read as Apple's
/// property lists. What they must declare is checked by `.ci/portability.py` (its self-test has
/// twelve privacy cases); this checks that Package.swift really ships them.
@Suite("Privacy manifests (PrivacyInfo.xcprivacy)")
struct PrivacyManifestTests {
    @Test("each embedded library's manifest is copied into its resource bundle and parses as a property list",
          arguments: ["Manashiki", "ManashikiSync"])
    func shipped(_ target: String) throws {
        let source = try Data(contentsOf: PackageRoot.url.appendingPathComponent("Sources/\(target)/PrivacyInfo.xcprivacy"))
        let built = try #require(BuiltProduct.resource("PrivacyInfo.xcprivacy", of: target), "no resource bundle for \(target): is it in Package.swift's resources?")
        #expect(try Data(contentsOf: built) == source)
        let plist = try #require(try PropertyListSerialization.propertyList(from: source, format: nil) as? [String: Any])
        #expect(plist["NSPrivacyTracking"] as? Bool == false)
        let accessed = try #require(plist["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        #expect(!accessed.isEmpty && accessed.allSatisfy { ($0["NSPrivacyAccessedAPITypeReasons"] as? [String])?.isEmpty == false })
    }
}

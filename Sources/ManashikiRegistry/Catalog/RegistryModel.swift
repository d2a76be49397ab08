import Foundation
import ManashikiCore

/// One model in the development registry: the wire record's fields plus where its bytes come
/// from. `size` and `sha256` are computed from the artifact.
///
/// ```swift
/// RegistryModel(modelId: "tiny", version: "1.0.0", artifact: .generated(size: 1 << 20, seed: 7),
///               platforms: ["linux", "macos"], visibility: "public", status: "production")
/// ```
public struct RegistryModel: Sendable, Hashable {
    /// The model id (CONTRACT §2).
    public var modelId: String
    /// The current version.
    public var version: String
    /// The bytes of the current version.
    public var artifact: RegistryArtifact
    /// `compatibility.platforms`.
    public var platforms: [String]
    /// `visibility`: `public` or `private`.
    public var visibility: String
    /// `lifecycle.status`: `draft`, `staging`, `production`, `deprecated`, `sunset` (or any
    /// other string, to test unknown statuses).
    public var status: String
    /// `lifecycle.sunsetAt` (ISO 8601), or nil for JSON `null`.
    public var sunsetAt: String?
    /// `compatibility.min_os`.
    public var minOS: String?
    /// `compatibility.min_ram_mb`.
    public var minRAMMB: Int?
    /// `compatibility.min_disk_mb`.
    public var minDiskMB: Int?
    /// `card` (absent when nil).
    public var card: JSONValue?
    /// `lineage` (absent when nil).
    public var lineage: JSONValue?
    /// `format` (absent when nil).
    public var format: JSONValue?
    /// `metrics` (absent when nil).
    public var metrics: JSONValue?
    /// The organisation that owns the model. A private model with an organisation is listed
    /// and served only to keys of that organisation (or keys without one).
    public var organization: String?
    /// Extra top-level fields merged into the wire record (to test that clients ignore
    /// unknown fields).
    public var extraFields: [String: JSONValue]

    /// Creates a model.
    public init(modelId: String, version: String, artifact: RegistryArtifact, platforms: [String] = [],
                visibility: String = "public", status: String = "production", sunsetAt: String? = nil,
                minOS: String? = nil, minRAMMB: Int? = nil, minDiskMB: Int? = nil,
                card: JSONValue? = nil, lineage: JSONValue? = nil, format: JSONValue? = nil,
                metrics: JSONValue? = nil, organization: String? = nil, extraFields: [String: JSONValue] = [:]) {
        self.modelId = modelId
        self.version = version
        self.artifact = artifact
        self.platforms = platforms
        self.visibility = visibility
        self.status = status
        self.sunsetAt = sunsetAt
        self.minOS = minOS
        self.minRAMMB = minRAMMB
        self.minDiskMB = minDiskMB
        self.card = card
        self.lineage = lineage
        self.format = format
        self.metrics = metrics
        self.organization = organization
        self.extraFields = extraFields
    }

    /// Whether `modelId` matches CONTRACT §2: `^[a-z0-9](?:[a-z0-9._-]{0,126}[a-z0-9])?$`
    /// and no `..`.
    public static func isValidModelId(_ id: String) -> Bool {
        let u = Array(id.utf8)
        func edge(_ b: UInt8) -> Bool { (b >= 48 && b <= 57) || (b >= 97 && b <= 122) }
        func inner(_ b: UInt8) -> Bool { edge(b) || b == 46 || b == 95 || b == 45 }
        guard (1...128).contains(u.count), edge(u.first!), edge(u.last!), u.allSatisfy(inner) else { return false }
        return !id.contains("..")
    }

    /// The platform names `compatibility.platforms` may contain.
    public static let knownPlatforms: Set<String> = ["ios", "ipados", "macos", "visionos", "watchos", "tvos", "linux", "android", "windows"]
}

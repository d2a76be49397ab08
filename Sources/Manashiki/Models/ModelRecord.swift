import Foundation

/// The full registry record of a model (`GET /api/models/{modelId}`).
///
/// ```swift
/// let record = try await client.getModel("whisper-medical-ja-fp16")
/// print(record.lifecycle.status, record.compatibility.minOs ?? "-")
/// ```
public struct ModelRecord: Codable, Sendable, Hashable {
    /// The model id.
    public var modelId: String
    /// The version currently published.
    public var version: String
    /// The artifact's size in bytes.
    public var size: Int64
    /// The artifact's SHA-256, 64 lowercase hex characters.
    public var sha256: String
    /// The model card, if the registry has one.
    public var card: ModelCard?
    /// Where the model comes from, if known.
    public var lineage: ModelLineage?
    /// The artifact's format, if known.
    public var format: ModelFormat?
    /// Which devices can run the model.
    public var compatibility: ModelCompatibility
    /// Where the model is in its life (production, deprecated, sunset…).
    public var lifecycle: ModelLifecycle
    /// Who can download it.
    public var visibility: ModelVisibility
    /// Benchmark metrics by name (`wer`, `rtf`, …); only numeric values are kept.
    public var metrics: [String: Double]?

    /// Creates a record.
    public init(
        modelId: String, version: String, size: Int64, sha256: String,
        card: ModelCard? = nil, lineage: ModelLineage? = nil, format: ModelFormat? = nil,
        compatibility: ModelCompatibility, lifecycle: ModelLifecycle,
        visibility: ModelVisibility, metrics: [String: Double]? = nil
    ) {
        self.modelId = modelId
        self.version = version
        self.size = size
        self.sha256 = sha256
        self.card = card
        self.lineage = lineage
        self.format = format
        self.compatibility = compatibility
        self.lifecycle = lifecycle
        self.visibility = visibility
        self.metrics = metrics
    }

    /// The catalog entry this record corresponds to.
    public var entry: ModelEntry { ModelEntry(modelId: modelId, version: version, size: size, sha256: sha256) }

    private enum CodingKeys: String, CodingKey {
        case modelId, version, size, sha256, card, lineage, format, compatibility, lifecycle, visibility, metrics
    }

    /// Decodes the wire format; `metrics` keeps numeric values and ignores the rest.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        modelId = try c.decode(String.self, forKey: .modelId)
        version = try c.decode(String.self, forKey: .version)
        size = try c.decode(Int64.self, forKey: .size)
        sha256 = try c.decode(String.self, forKey: .sha256)
        card = try c.decodeIfPresent(ModelCard.self, forKey: .card)
        lineage = try c.decodeIfPresent(ModelLineage.self, forKey: .lineage)
        format = try c.decodeIfPresent(ModelFormat.self, forKey: .format)
        compatibility = try c.decode(ModelCompatibility.self, forKey: .compatibility)
        lifecycle = try c.decode(ModelLifecycle.self, forKey: .lifecycle)
        visibility = try c.decode(ModelVisibility.self, forKey: .visibility)
        metrics = try c.decodeIfPresent([String: LenientNumber].self, forKey: .metrics)?
            .compactMapValues(\.value)
    }
}

/// A JSON value kept only if it is a number.
private struct LenientNumber: Decodable {
    var value: Double?
    init(from decoder: any Decoder) throws {
        value = try? decoder.singleValueContainer().decode(Double.self)
    }
}

/// The human description of a model.
public struct ModelCard: Codable, Sendable, Hashable {
    /// A short title.
    public var title: String?
    /// A paragraph about what the model does.
    public var summary: String?
    /// An SPDX license id such as `apache-2.0`.
    public var license: String?
    /// Free-form tags (`asr`, `ja`, …).
    public var tags: [String]?

    /// Creates a card.
    public init(title: String? = nil, summary: String? = nil, license: String? = nil, tags: [String]? = nil) {
        self.title = title
        self.summary = summary
        self.license = license
        self.tags = tags
    }
}

/// Where a model comes from.
public struct ModelLineage: Codable, Sendable, Hashable {
    /// The model this one was derived from.
    public var baseModelId: String?
    /// The version this one replaced.
    public var parentVersion: String?

    /// Creates a lineage.
    public init(baseModelId: String? = nil, parentVersion: String? = nil) {
        self.baseModelId = baseModelId
        self.parentVersion = parentVersion
    }
}

/// The artifact's format.
public struct ModelFormat: Codable, Sendable, Hashable {
    /// The container format (`ggml`, `gguf`, `coreml`, …).
    public var type: String?
    /// The numeric precision (`fp16`, `int8`, …).
    public var precision: String?

    /// Creates a format.
    public init(type: String? = nil, precision: String? = nil) {
        self.type = type
        self.precision = precision
    }
}

/// Which devices can run a model.
public struct ModelCompatibility: Codable, Sendable, Hashable {
    /// The platforms the model supports.
    public var platforms: [Platform]
    /// The oldest OS version supported, dotted (`17.0`); compare with `OSVersion`.
    public var minOs: String?
    /// The memory the model needs, in MiB.
    public var minRamMb: Int?
    /// The free disk the model needs, in MiB.
    public var minDiskMb: Int?

    /// Creates a compatibility description.
    public init(platforms: [Platform], minOs: String? = nil, minRamMb: Int? = nil, minDiskMb: Int? = nil) {
        self.platforms = platforms
        self.minOs = minOs
        self.minRamMb = minRamMb
        self.minDiskMb = minDiskMb
    }

    private enum CodingKeys: String, CodingKey {
        case platforms
        case minOs = "min_os"
        case minRamMb = "min_ram_mb"
        case minDiskMb = "min_disk_mb"
    }
}

/// A device platform named in `compatibility.platforms`.
///
/// Unknown values decode as themselves rather than failing the record (the standard library's
/// `RawRepresentable` coding: the wire string, through the non-failable `init(rawValue:)`).
public struct Platform: RawRepresentable, Codable, Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The wire value, such as `ios`.
    public var rawValue: String
    /// Creates a platform from its wire value.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// Creates a platform from a literal.
    public init(stringLiteral value: String) { self.rawValue = value }
    /// The wire value.
    public var description: String { rawValue }

    /// iPhone.
    public static let ios: Platform = "ios"
    /// iPad.
    public static let ipados: Platform = "ipados"
    /// Mac.
    public static let macos: Platform = "macos"
    /// Apple Vision Pro.
    public static let visionos: Platform = "visionos"
    /// Apple Watch.
    public static let watchos: Platform = "watchos"
    /// Apple TV.
    public static let tvos: Platform = "tvos"
    /// Linux.
    public static let linux: Platform = "linux"
    /// Android.
    public static let android: Platform = "android"
    /// Windows.
    public static let windows: Platform = "windows"
    /// Every value the contract names.
    public static let known: [Platform] = [.ios, .ipados, .macos, .visionos, .watchos, .tvos, .linux, .android, .windows]
}

/// Where a model is in its life.
public struct ModelLifecycle: Codable, Sendable, Hashable {
    /// The status.
    public var status: LifecycleStatus
    /// When the model will be (or was) sunset, if scheduled; an unparseable date reads as nil.
    public var sunsetAt: Date?

    /// Creates a lifecycle.
    public init(status: LifecycleStatus, sunsetAt: Date? = nil) {
        self.status = status
        self.sunsetAt = sunsetAt
    }

    private enum CodingKeys: String, CodingKey { case status, sunsetAt }

    /// Decodes `status` and `sunsetAt` (an absent, null or unparseable date reads as nil).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        status = try c.decode(LifecycleStatus.self, forKey: .status)
        let raw = try? c.decodeIfPresent(String.self, forKey: .sunsetAt)
        sunsetAt = raw.flatMap { ISO8601.date(from: $0) }
    }

    /// Encodes the wire form, `sunsetAt` as ISO 8601 or null.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(status, forKey: .status)
        try c.encode(sunsetAt.map(ISO8601.string(from:)), forKey: .sunsetAt)
    }
}

/// A lifecycle status. Values the SDK does not know are kept as `.unknown(value)` (coded as the
/// wire string by `RawRepresentable`, like `Platform`).
public enum LifecycleStatus: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    /// Not yet published.
    case draft
    /// Published for testing.
    case staging
    /// Recommended for use.
    case production
    /// Still downloadable, but a successor exists.
    case deprecated
    /// Retired: no longer downloadable.
    case sunset
    /// A status this SDK version does not know.
    case unknown(String)

    /// Creates a status from its wire value.
    public init(rawValue: String) {
        switch rawValue {
        case "draft": self = .draft
        case "staging": self = .staging
        case "production": self = .production
        case "deprecated": self = .deprecated
        case "sunset": self = .sunset
        default: self = .unknown(rawValue)
        }
    }

    /// The wire value.
    public var rawValue: String {
        switch self {
        case .draft: return "draft"
        case .staging: return "staging"
        case .production: return "production"
        case .deprecated: return "deprecated"
        case .sunset: return "sunset"
        case .unknown(let value): return value
        }
    }

    /// The wire value.
    public var description: String { rawValue }
}

/// Who can download a model (its publication mode). A mode the SDK does not know is kept as
/// `.unknown(value)` (coded as the wire string by `RawRepresentable`, like `Platform`).
public enum ModelVisibility: RawRepresentable, Codable, Sendable, Hashable, CustomStringConvertible {
    /// Anyone with a key of the organisation (or any key, for public catalogs).
    case `public`
    /// Organisation-private: downloads need a session token.
    case `private`
    /// A mode this SDK version does not know; treated like `private` by the sync agent.
    case unknown(String)

    /// Creates a visibility from its wire value.
    public init(rawValue: String) {
        switch rawValue {
        case "public": self = .public
        case "private": self = .private
        default: self = .unknown(rawValue)
        }
    }

    /// The wire value.
    public var rawValue: String {
        switch self {
        case .public: return "public"
        case .private: return "private"
        case .unknown(let value): return value
        }
    }

    /// The wire value.
    public var description: String { rawValue }
}

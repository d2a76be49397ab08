import Foundation
import Manashiki

/// One model a manifest wants installed.
///
/// ```json
/// {"id": "whisper-medical-ja-fp16", "version": "^1.4", "platforms": ["ios", "macos"],
///  "sha256": "9f86d081…", "session": {"env": "MANASHIKI_SESSION"}}
/// ```
public struct ModelSpec: Sendable, Hashable {
    /// The model id (a valid `ModelID`).
    public var id: String
    /// Which versions are acceptable. Default `latest`.
    public var version: VersionRequirement
    /// The exact artifact required (64 lowercase hex), for reproducible images.
    public var sha256: String?
    /// The device platforms this entry applies to; nil means all.
    public var platforms: [Platform]?
    /// Where the session token comes from, for private models.
    public var session: SessionSource?
    /// How much the manifest insists on the model (`"class"`; `"optional": true` is the same as
    /// `"class": "optional"`). Default `.required`.
    public var modelClass: ModelClass
    /// The order in which optional models are installed when a `store.budget` cannot hold them
    /// all (`"priority"`, -1000…1000, default 0): higher first; equal priorities keep manifest
    /// order. Also breaks ties between models last used at the same time when evicting (lower
    /// first).
    public var priority: Int
    /// Whether a publisher signature is required (`"signature"`); nil: the `trust.modelSigning`
    /// section's default (required). Meaningful only with that section.
    public var signature: SignatureRequirement?

    /// Whether the model may be absent: an `optional` or `onDemand` entry. When the run cannot
    /// deliver it (unknown id, unsatisfiable version, lifecycle, device…) it is skipped with a
    /// warning instead of blocking the run. False for a required model: one that cannot be
    /// delivered is `blocked` and the run fails. Setting it makes the entry `optional` or `required`.
    public var isOptional: Bool {
        get { modelClass != .required }
        set { modelClass = newValue ? .optional : .required }
    }

    /// Creates a spec; `modelClass`, when given, wins over `isOptional`.
    public init(id: String, version: VersionRequirement = .latest, sha256: String? = nil,
                platforms: [Platform]? = nil, session: SessionSource? = nil, isOptional: Bool = false,
                modelClass: ModelClass? = nil, priority: Int = 0) {
        self.id = id
        self.version = version
        self.sha256 = sha256
        self.platforms = platforms
        self.session = session
        self.modelClass = modelClass ?? (isOptional ? .optional : .required)
        self.priority = priority
    }

    /// Whether the entry applies to a device of `platform`.
    public func applies(to platform: Platform) -> Bool {
        platforms.map { $0.contains(platform) } ?? true
    }
}

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
    /// Whether the model may be absent (`"optional": true`): when the run cannot deliver it
    /// (unknown id, unsatisfiable version, lifecycle, device…) it is skipped with a warning
    /// instead of blocking the run. Default false: a required model that cannot be delivered
    /// is `blocked` and the run fails.
    public var isOptional: Bool

    /// Creates a spec.
    public init(id: String, version: VersionRequirement = .latest, sha256: String? = nil,
                platforms: [Platform]? = nil, session: SessionSource? = nil, isOptional: Bool = false) {
        self.id = id
        self.version = version
        self.sha256 = sha256
        self.platforms = platforms
        self.session = session
        self.isOptional = isOptional
    }

    /// Whether the entry applies to a device of `platform`.
    public func applies(to platform: Platform) -> Bool {
        platforms.map { $0.contains(platform) } ?? true
    }
}

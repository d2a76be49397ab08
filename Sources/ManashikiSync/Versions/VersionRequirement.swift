import Foundation

/// Which versions of a model a manifest accepts.
///
/// | manifest | meaning |
/// |---|---|
/// | `"latest"` (or absent) | whatever the registry currently serves |
/// | `"1.4.0"` | exactly 1.4.0 |
/// | `"^1.2"` | ≥ 1.2.0 and < 2.0.0 (for `^0.3`: ≥ 0.3.0 and < 0.4.0) |
/// | `"~1.2"` | ≥ 1.2.0 and < 1.3.0 (`~1`: ≥ 1.0.0 and < 2.0.0) |
///
/// The registry serves only the *current* version of each model, so a requirement is met only
/// by the catalog's current version or by the version already installed.
///
/// ```swift
/// let req = try VersionRequirement(parsing: "^1.2")
/// req.isSatisfied(by: "1.4.0")   // true
/// req.isSatisfied(by: "2.0.0")   // false
/// ```
public enum VersionRequirement: Sendable, Hashable, CustomStringConvertible, Codable {
    /// Whatever the registry serves.
    case latest
    /// Exactly this version.
    case exact(ModelVersion)
    /// Compatible with this version: same major (same minor for 0.x).
    case caret(ModelVersion)
    /// Approximately this version: same major and minor (same major if only a major is given).
    case tilde(ModelVersion)

    /// The problem with a requirement text, shaped for manifest validation.
    public struct ParseError: Error, Sendable, Equatable {
        /// What was wrong.
        public var message: String
        /// What to write instead.
        public var hint: String
    }

    /// Parses `"latest"`, an exact version, `^x.y` or `~x.y`.
    /// - Throws: `ParseError` saying what is wrong and what to write instead.
    public init(parsing text: String) throws {
        let hint = #"use "1.2.0", "^1.2" or "latest""#
        if text == "latest" { self = .latest; return }
        if let first = text.first, first == "^" || first == "~" {
            guard let v = ModelVersion(String(text.dropFirst())), v.prerelease == nil else {
                throw ParseError(message: "\"\(text)\" is not a valid range", hint: hint)
            }
            self = first == "^" ? .caret(v) : .tilde(v)
            return
        }
        guard let v = ModelVersion(text) else {
            throw ParseError(message: "\"\(text)\" is neither a version nor a range", hint: hint)
        }
        self = .exact(v)
    }

    /// Whether `version` meets the requirement. A version that does not parse meets only
    /// `.latest`, or `.exact` with the same text.
    public func isSatisfied(by version: String) -> Bool {
        if case .latest = self { return true }
        guard let v = ModelVersion(version) else {
            if case .exact(let e) = self { return e.text == version }
            return false
        }
        switch self {
        case .latest: return true
        case .exact(let e): return v == e
        case .caret(let base):
            guard v >= base, v.prerelease == nil else { return false }
            if base.component(0) > 0 { return v.component(0) == base.component(0) }
            if base.components.count == 1 { return v.component(0) == 0 }
            return v.component(0) == 0 && v.component(1) == base.component(1)
        case .tilde(let base):
            guard v >= base, v.prerelease == nil else { return false }
            if base.components.count == 1 { return v.component(0) == base.component(0) }
            return v.component(0) == base.component(0) && v.component(1) == base.component(1)
        }
    }

    /// The exact version pinned, if this is `.exact`.
    public var exactVersion: ModelVersion? {
        if case .exact(let v) = self { return v }
        return nil
    }

    /// The manifest spelling: `latest`, `1.4.0`, `^1.2`, `~1.2`.
    public var description: String {
        switch self {
        case .latest: return "latest"
        case .exact(let v): return v.text
        case .caret(let v): return "^\(v.text)"
        case .tilde(let v): return "~\(v.text)"
        }
    }

    /// Decodes the manifest spelling.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        do { try self.init(parsing: text) } catch let e as ParseError {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "\(e.message); \(e.hint)")
        }
    }

    /// Encodes the manifest spelling.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }
}

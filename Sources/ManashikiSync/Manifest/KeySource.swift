import Foundation

/// Where the agent reads its API key from. A manifest never holds the key itself (manifests
/// get committed): `{"env": "MANASHIKI_API_KEY"}` or `{"file": "~/.config/manashiki/key"}`.
public enum KeySource: Sendable, Hashable, CustomStringConvertible {
    /// An environment variable's value.
    case environment(String)
    /// A file's contents, less one trailing newline. Relative paths resolve against the
    /// manifest's directory; `~/` against the home directory.
    case file(String)

    /// The variable read by default: `MANASHIKI_API_KEY`.
    public static let defaultVariable = "MANASHIKI_API_KEY"
    /// `MANASHIKI_API_KEY`, the default.
    public static let `default` = KeySource.environment(defaultVariable)

    /// Where the key comes from, never the key.
    public var description: String {
        switch self {
        case .environment(let name): return "environment variable \(name)"
        case .file(let path): return "file \(path)"
        }
    }
}

import Foundation
import Manashiki

/// An API key and where it came from. `description` names the source, never the key.
public struct LoadedKey: Sendable, CustomStringConvertible {
    /// The key itself: pass it to the SDK, never print it.
    public let value: String
    /// Where it came from (`environment variable MANASHIKI_API_KEY`).
    public let source: String
    /// The file it was read from, when it came from one.
    package var file: URL?

    /// `publishable key (mk_pub_) of organisation demo, from environment variable MANASHIKI_API_KEY`.
    public var description: String {
        guard let key = try? APIKey(value) else { return "a key from \(source)" }
        let org = key.organization.map { " of organisation \($0)" } ?? ""
        return "\(key.tier.rawValue)-tier key (\(key.kind.rawValue))\(org), from \(source)"
    }
}

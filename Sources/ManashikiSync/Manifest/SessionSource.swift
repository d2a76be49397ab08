import Foundation

/// Where a private model's session token comes from.
///
/// ```json
/// {"env": "MANASHIKI_SESSION"}
/// {"file": "/run/secrets/manashiki-session"}
/// {"command": ["/usr/local/bin/fetch-model-session", "--principal", "kiosk-7"]}
/// {"mint": {"principalId": "fleet-agent", "ttlSec": 3600}}
/// ```
/// `mint` asks the registry (`createSession`), which works only when the agent holds a legacy
/// `sk_live_` key. Tokens are secrets: they are never logged or reported.
public enum SessionSource: Sendable, Hashable, CustomStringConvertible {
    /// An environment variable's value.
    case environment(String)
    /// A file's contents, less one trailing newline.
    case file(String)
    /// The standard output of a command (argv, no shell), less one trailing newline.
    case command([String])
    /// A session minted with the agent's own `sk_live_` key.
    case mint(principalId: String, ttlSec: Int)

    /// Where the token comes from, never the token.
    public var description: String {
        switch self {
        case .environment(let name): return "environment variable \(name)"
        case .file(let path): return "file \(path)"
        case .command(let argv): return "command \(argv.first ?? "")"
        case .mint(let principal, _): return "a session minted for \(principal)"
        }
    }
}

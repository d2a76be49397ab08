import Foundation
import Manashiki
import ManashikiSync

/// An API key and where it came from. `description` names the source, never the key.
public struct LoadedKey: Sendable, CustomStringConvertible {
    /// The key itself: pass it to the SDK, never print it.
    public let value: String
    /// Where it came from (`environment variable MANASHIKI_API_KEY`).
    public let source: String

    /// `publishable key (mk_pub_) of organisation demo, from environment variable MANASHIKI_API_KEY`.
    public var description: String {
        guard let key = try? APIKey(value) else { return "a key from \(source)" }
        let org = key.organization.map { " of organisation \($0)" } ?? ""
        return "\(key.tier.rawValue)-tier key (\(key.kind.rawValue))\(org), from \(source)"
    }
}

/// Why no usable key was found. The message never contains the key.
public struct KeyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong and what to do.
    public let message: String
    /// The message.
    public var description: String { message }
}

/// Finds the API key: `--api-key-file`, else `MANASHIKI_API_KEY`, else the manifest's
/// `registry.apiKey` source. A key read from a file loses one trailing newline (`\n` or
/// `\r\n`) and nothing else; the key is then validated locally.
public enum KeyLoader {
    /// The environment variable read when no file is given.
    public static let environmentVariable = "MANASHIKI_API_KEY"

    /// Loads and validates the key.
    /// - Throws: `KeyError` naming the source and the fix.
    public static func load(apiKeyFile: String?, environment: [String: String], manifest: Manifest?,
                            currentDirectory: URL) throws(KeyError) -> LoadedKey {
        if let apiKeyFile {
            return try fromFile(resolve(apiKeyFile, against: currentDirectory), label: "--api-key-file \(apiKeyFile)")
        }
        if let value = environment[environmentVariable], !value.isEmpty {
            return try validated(value, source: "environment variable \(environmentVariable)")
        }
        switch manifest?.registry.apiKey {
        case .environment(let name)? where name != environmentVariable:
            guard let value = environment[name], !value.isEmpty else {
                throw KeyError(message: "no API key: the manifest reads it from the environment variable \(name), which is not set — export \(name) (or MANASHIKI_API_KEY), or pass --api-key-file PATH")
            }
            return try validated(value, source: "environment variable \(name)")
        case .file(let path)?:
            let base = manifest?.baseDirectory ?? currentDirectory
            return try fromFile(resolve(path, against: base), label: "the manifest's key file \(path)")
        default:
            throw KeyError(message: "no API key: set the MANASHIKI_API_KEY environment variable, or put the key in a file readable only by you and pass --api-key-file PATH")
        }
    }

    static func fromFile(_ url: URL, label: String) throws(KeyError) -> LoadedKey {
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw KeyError(message: "cannot read the API key file \(url.path) (\(label)): check that it exists and that this user may read it")
        }
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\r\n") { text.removeLast(1) } // "\r\n" is one Character; drop it whole
        else if text.hasSuffix("\n") { text.removeLast() }
        return try validated(text, source: "file \(url.path)")
    }

    static func validated(_ value: String, source: String) throws(KeyError) -> LoadedKey {
        guard APIKey.isValid(value) else {
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            let why: String
            if value.isEmpty { why = "it is empty" }
            else if APIKey.isValid(trimmed) { why = "it has extra spaces or lines around it (only one trailing newline is stripped from a file)" }
            else if value.contains("\n") { why = "it has more than one line" }
            else { why = "it does not match any key format (mk_pub_<org>_…, mk_live_<org>_…, mk_svc_<org>_…, sk_live_…, each ending in at least 20 letters and digits)" }
            throw KeyError(message: "the API key from \(source) is malformed: \(why) — copy the key again from the dashboard (the value is not shown)")
        }
        return LoadedKey(value: value, source: source)
    }

    /// Resolves absolute, `~/…` and relative paths.
    static func resolve(_ path: String, against base: URL) -> URL {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path).standardizedFileURL }
        if path == "~" || path.hasPrefix("~/") {
            // NSHomeDirectory exists on every platform; homeDirectoryForCurrentUser is macOS-only.
            return URL(fileURLWithPath: NSHomeDirectory(), isDirectory: true).appendingPathComponent(String(path.dropFirst(2))).standardizedFileURL
        }
        return base.appendingPathComponent(path).standardizedFileURL
    }
}

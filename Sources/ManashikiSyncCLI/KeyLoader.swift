import Foundation
import ManashikiSync

/// The command's key precedence: `--api-key-file`, else `MANASHIKI_API_KEY`, else the
/// manifest's `registry.apiKey` source. Reading, the one-newline rule and validation are
/// `SecretResolver`'s (the same as the library's), so a key behaves the same everywhere.
enum KeyLoader {
    /// The environment variable read when no file is given.
    static let environmentVariable = KeySource.defaultVariable

    /// Loads and validates the key.
    /// - Throws: `KeyError` naming the source and the fix.
    static func load(apiKeyFile: String?, environment: [String: String], manifest: Manifest?,
                     currentDirectory: URL) throws(KeyError) -> LoadedKey {
        let variables = SyncEnvironment(variables: environment)
        if let apiKeyFile {
            return try SecretResolver(environment: variables, baseDirectory: currentDirectory)
                .apiKey(.file(apiKeyFile), label: "--api-key-file \(apiKeyFile)")
        }
        if let value = environment[environmentVariable], !value.isEmpty {
            return try SecretResolver.validated(value, source: "environment variable \(environmentVariable)")
        }
        let resolver = SecretResolver(environment: variables, baseDirectory: manifest?.baseDirectory ?? currentDirectory)
        switch manifest?.registry.apiKey {
        case .environment(let name)? where name != environmentVariable:
            guard let value = environment[name], !value.isEmpty else {
                throw KeyError(message: "no API key: the manifest reads it from the environment variable \(name), which is not set — export \(name) (or MANASHIKI_API_KEY), or pass --api-key-file PATH")
            }
            return try resolver.apiKey(.environment(name))
        case .file(let path)?:
            return try resolver.apiKey(.file(path), label: "the manifest's key file \(path)")
        default:
            throw KeyError(message: "no API key: set the MANASHIKI_API_KEY environment variable, or put the key in a file readable only by you and pass --api-key-file PATH")
        }
    }
}

import Foundation
import Manashiki

/// Reads API keys and session tokens from their sources: the one place the agent (and the
/// command, which adds its own precedence on top) resolves a secret. Secrets never appear in
/// errors.
package struct SecretResolver: Sendable {
    package var environment: SyncEnvironment
    /// What relative paths resolve against (the manifest's directory; nil is the current one).
    package var baseDirectory: URL?

    package init(environment: SyncEnvironment, baseDirectory: URL?) {
        self.environment = environment
        self.baseDirectory = baseDirectory
    }

    /// The API key named by `source`, validated locally.
    /// - Parameter label: how the source is named in errors (default: the source itself).
    /// - Throws: `KeyError` saying which source is missing, unreadable or malformed, and the fix.
    package func apiKey(_ source: KeySource, label: String? = nil) throws(KeyError) -> LoadedKey {
        switch source {
        case .environment(let name):
            guard let value = environment.variables[name], !value.isEmpty else {
                throw KeyError(message: "no API key: it is read from the environment variable \(name), which is not set — export \(name)")
            }
            // One trailing newline goes, as from a file: a Kubernetes Secret made from a key file
            // with `--from-file` keeps the file's newline in the variable.
            return try Self.validated(Self.chompingOneNewline(value), source: "environment variable \(name)")
        case .file(let path):
            let url = PathResolver.resolve(path, against: baseDirectory)
            let text: String
            do { text = try environment.readFile(url) } catch {
                throw KeyError(message: "cannot read the API key file \(url.path) (\(label ?? source.description)): check that it exists and that this user may read it")
            }
            var key = try Self.validated(Self.chompingOneNewline(text), source: "file \(url.path)")
            key.file = url
            return key
        }
    }

    /// `value` as a key from `source`, if it has a key's form.
    /// - Throws: `KeyError` saying what is wrong with it (never showing it).
    package static func validated(_ value: String, source: String) throws(KeyError) -> LoadedKey {
        guard APIKey.isValid(value) else {
            let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
            let why: String
            if value.isEmpty { why = "it is empty" }
            else if APIKey.isValid(trimmed) { why = "it has extra spaces or lines around it (only one trailing newline is stripped)" }
            else if value.contains("\n") { why = "it has more than one line" }
            else { why = "it does not match any key format (mk_pub_<org>_…, mk_live_<org>_…, mk_svc_<org>_…, sk_live_…, each ending in at least 20 letters and digits)" }
            throw KeyError(message: "the API key from \(source) is malformed: \(why) — copy the key again from the dashboard (the value is not shown)")
        }
        return LoadedKey(value: value, source: source)
    }

    /// `text` less one trailing newline (`\n` or `\r\n`), as secret files and commands print it.
    static func chompingOneNewline(_ text: String) -> String {
        var text = text
        if text.hasSuffix("\r\n") { text.removeLast() } // "\r\n" is one Character: drop it whole
        else if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// Whether `source` can provide a token, without running commands or minting.
    func availability(_ source: SessionSource?, registry: any RegistryClient) -> SessionAvailability {
        guard let source else { return .unavailable("no session source is configured for this private model") }
        switch source {
        case .environment(let name):
            return environment.variables[name].map { $0.isEmpty ? .unavailable("environment variable \(name) is empty") : .available }
                ?? .unavailable("environment variable \(name) is not set")
        case .file(let path):
            let url = PathResolver.resolve(path, against: baseDirectory)
            return FileManager.default.isReadableFile(atPath: url.path) ? .available : .unavailable("session file \(url.path) does not exist or is unreadable")
        case .command(let argv):
            guard let tool = argv.first else { return .unavailable("the session command is empty") }
            if tool.hasPrefix("/") && !FileManager.default.isExecutableFile(atPath: tool) {
                return .unavailable("session command \(tool) is not an executable file")
            }
            return .available
        case .mint:
            return registry.canIssueSessions ? .available
                : .unavailable("minting a session needs a legacy sk_live_ key; this agent's key cannot issue sessions")
        }
    }

    /// Obtains a token from `source` (reads, runs or mints it).
    /// - Throws: `SyncFailure`: terminal for a missing source, retryable when minting hit a
    ///   retryable registry error.
    func token(_ source: SessionSource, registry: any RegistryClient) async throws -> String {
        let token: String
        switch source {
        case .environment(let name):
            guard let v = environment.variables[name], !v.isEmpty else {
                throw SyncFailure(kind: .terminal, message: "environment variable \(name) is not set")
            }
            token = Self.chompingOneNewline(v)
        case .file(let path):
            let url = PathResolver.resolve(path, against: baseDirectory)
            do { token = Self.chompingOneNewline(try environment.readFile(url)) } catch {
                throw SyncFailure(kind: .terminal, message: "session file \(url.path) cannot be read")
            }
        case .command(let argv):
            token = Self.chompingOneNewline(try await environment.runCommand(argv))
        case .mint(let principal, let ttl):
            do { token = try await registry.createSession(principalId: principal, ttlSec: ttl).token } catch {
                throw SyncFailure(error)
            }
        }
        guard !token.isEmpty else { throw SyncFailure(kind: .terminal, message: "the session source (\(source)) gave an empty token") }
        return token
    }
}

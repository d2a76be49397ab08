import Foundation
import Manashiki

/// Reads API keys and session tokens from their sources. Secrets never appear in errors.
struct SecretResolver: Sendable {
    var environment: SyncEnvironment
    var baseDirectory: URL?

    /// The API key named by `source`.
    /// - Throws: `SyncFailure` (terminal) saying which source is missing or malformed.
    func apiKey(_ source: KeySource) throws -> String {
        let value: String
        switch source {
        case .environment(let name):
            guard let v = environment.variables[name], !v.isEmpty else {
                throw SyncFailure(kind: .terminal, message: "the API key is read from the environment variable \(name), which is not set")
            }
            value = v
        case .file(let path):
            let url = Manifest.resolve(path, against: baseDirectory)
            do { value = SyncEnvironment.chompingOneNewline(try environment.readFile(url)) } catch {
                throw SyncFailure(kind: .terminal, message: "the API key file \(url.path) cannot be read")
            }
        }
        guard APIKey.isValid(value) else {
            throw SyncFailure(kind: .terminal, message: "the value of \(source) is not a valid Manashiki API key (check for spaces or a second line)")
        }
        return value
    }

    /// Whether `source` can provide a token, without running commands or minting.
    func availability(_ source: SessionSource?, registry: any RegistryClient) -> SessionAvailability {
        guard let source else { return .unavailable("no session source is configured for this private model") }
        switch source {
        case .environment(let name):
            return environment.variables[name].map { $0.isEmpty ? .unavailable("environment variable \(name) is empty") : .available }
                ?? .unavailable("environment variable \(name) is not set")
        case .file(let path):
            let url = Manifest.resolve(path, against: baseDirectory)
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
            token = v
        case .file(let path):
            let url = Manifest.resolve(path, against: baseDirectory)
            do { token = SyncEnvironment.chompingOneNewline(try environment.readFile(url)) } catch {
                throw SyncFailure(kind: .terminal, message: "session file \(url.path) cannot be read")
            }
        case .command(let argv):
            token = SyncEnvironment.chompingOneNewline(try await environment.runCommand(argv))
        case .mint(let principal, let ttl):
            do { token = try await registry.createSession(principalId: principal, ttlSec: ttl).token } catch {
                throw SyncFailure(error)
            }
        }
        guard !token.isEmpty else { throw SyncFailure(kind: .terminal, message: "the session source (\(source)) gave an empty token") }
        return token
    }
}

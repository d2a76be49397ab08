import Foundation
import ManashikiCore
import Manashiki

/// Where a source's registry credentials come from, when the manifest says
/// (`"credentials": {"file": "…"}` or `{"env": "…"}`); otherwise the auth files container tools
/// write are searched (`OCICredentials.lookup`).
public enum OCICredentialSource: Sendable, Hashable, CustomStringConvertible {
    /// An auth file in the format `docker login`, `podman login --authfile` and `oras login
    /// --registry-config` write (`{"auths": {"HOST": {"auth": base64("user:password")}}}`).
    /// Relative paths resolve against the manifest's directory; `~/` against the home directory.
    case file(String)
    /// An environment variable holding `USERNAME:PASSWORD` (as `skopeo --creds` takes them; for
    /// a registry that takes a token, any user name and the token as the password).
    case environment(String)

    /// Where they come from, never the credentials.
    public var description: String {
        switch self {
        case .file(let path): return "auth file \(path)"
        case .environment(let name): return "environment variable \(name)"
        }
    }
}

/// Credentials for one registry, and where they were found (for messages; never the secret).
struct OCICredential: Sendable, CustomStringConvertible, CustomReflectable {
    var username: String
    var password: String
    /// An OAuth2 refresh token (`identitytoken` in an auth file), exchanged at the token service.
    var identityToken: String?
    /// `~/.docker/config.json`, `environment variable REGISTRY_CREDS`…
    var origin: String

    /// `Basic base64(user:password)`.
    var basicHeader: String { "Basic " + Data("\(username):\(password)".utf8).base64EncodedString() }

    /// Where they came from, never the secret (so an interpolation or `dump` cannot leak it).
    var description: String { "credentials from \(origin)" }
    /// Without the secret.
    var customMirror: Mirror { Mirror(self, children: ["origin": origin], displayStyle: .struct) }
}

/// Finds a registry's credentials where container tools keep them.
enum OCICredentials {
    /// What a lookup found: the credentials (nil: anonymous) and a note for errors (a
    /// credential helper that is configured for the registry but not run, a file that could not
    /// be read).
    struct Found: Sendable {
        var credential: OCICredential?
        var note: String?
        /// A credential helper the auth file names for the registry (`credHelpers`, `credsStore`),
        /// run only when the registry asks for credentials (`OCIAuthenticator`).
        var helper: String?
        /// The auth file that names it.
        var helperFile: String?
        /// How the helper is run (`SyncEnvironment.runCommand`).
        var run: (@Sendable ([String]) async throws -> String)?
    }

    /// The auth files searched, in order, as containers-auth.json(5) and docker read them:
    /// `$REGISTRY_AUTH_FILE`; `$XDG_RUNTIME_DIR/containers/auth.json`;
    /// `$XDG_CONFIG_HOME/containers/auth.json` (`~/.config/…`); `$DOCKER_CONFIG/config.json`,
    /// else `~/.docker/config.json`.
    static func searchPath(_ variables: [String: String]) -> [String] {
        let home = variables["HOME"] ?? NSHomeDirectory()
        var files: [String] = []
        if let file = variables["REGISTRY_AUTH_FILE"], !file.isEmpty { files.append(file) }
        if let runtime = variables["XDG_RUNTIME_DIR"], !runtime.isEmpty { files.append(runtime + "/containers/auth.json") }
        files.append((variables["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config") + "/containers/auth.json")
        files.append((variables["DOCKER_CONFIG"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.docker") + "/config.json")
        return files
    }

    /// The credentials for `reference`: from `source` when given (a missing file or variable is
    /// an error: the manifest asked for it), else the first auth file with an entry for it.
    /// - Throws: `SyncFailure` (terminal) naming the file or variable, never a secret.
    static func lookup(_ reference: OCIReference, source: OCICredentialSource?, environment: SyncEnvironment,
                       baseDirectory: URL?) throws -> Found {
        switch source {
        case .environment(let name)?:
            guard let value = environment.variables[name], !value.isEmpty else {
                throw SyncFailure(kind: .terminal, message: "the credentials for \(reference.registry) are read from the environment variable \(name), which is not set — export \(name)=USERNAME:PASSWORD")
            }
            let text = SecretResolver.chompingOneNewline(value)
            guard let colon = text.firstIndex(of: ":"), colon != text.startIndex else {
                throw SyncFailure(kind: .terminal, message: "the environment variable \(name) does not hold USERNAME:PASSWORD (the value is not shown)")
            }
            return Found(credential: OCICredential(username: String(text[..<colon]), password: String(text[text.index(after: colon)...]),
                                                   origin: "environment variable \(name)"))
        case .file(let path)?:
            let url = PathResolver.resolve(path, against: baseDirectory)
            let text: String
            do { text = try environment.readFile(url) } catch {
                throw SyncFailure(kind: .terminal, message: "cannot read the auth file \(url.path) named by the source's \"credentials\": check that it exists and that this user may read it")
            }
            var found = try entry(in: text, file: url.path, for: reference)
            if found.helper != nil { found.run = environment.runCommand }
            guard found.credential != nil || found.helper != nil else {
                throw SyncFailure(kind: .terminal, message: "the auth file \(url.path) has no entry for \(reference.registry) in \"auths\" — log in with `docker login --config …`/`podman login --authfile \(url.path) \(reference.registry)`")
            }
            return found
        case nil:
            var notes: [String] = []
            for path in searchPath(environment.variables) {
                let url = URL(fileURLWithPath: path)
                guard let text = try? environment.readFile(url) else { continue }
                do {
                    var found = try entry(in: text, file: path, for: reference)
                    if found.helper != nil { found.run = environment.runCommand }
                    if found.credential != nil || found.helper != nil { return found }
                    if let note = found.note { notes.append(note) }
                } catch {
                    notes.append("\(path) is not a valid auth file, so it was skipped")
                }
            }
            return Found(credential: nil, note: notes.isEmpty ? nil : notes.joined(separator: "; "))
        }
    }

    /// The entry for `reference` in an auth file's text: the most specific key first
    /// (`host/repo/path`, …, `host`), keys compared without a scheme or trailing `/v1/`.
    /// - Throws: `SyncFailure` when the file is not a JSON object or the entry is malformed.
    static func entry(in text: String, file: String, for reference: OCIReference) throws -> Found {
        // The strict reader, as every JSON this package reads (a duplicate key is refused).
        guard let object = (try? JSONValue.parse(Data(text.utf8)))?.foundationValue as? [String: Any] else {
            throw SyncFailure(kind: .terminal, message: "\(file) is not a JSON object (an auth file written by docker, podman or oras login)")
        }
        let candidates = keys(for: reference)
        let auths = (object["auths"] as? [String: Any]) ?? [:]
        var byKey: [String: [String: Any]] = [:]
        for (key, value) in auths { if let value = value as? [String: Any] { byKey[normalize(key)] = value } }
        for key in candidates {
            guard let value = byKey[key] else { continue }
            if let token = value["identitytoken"] as? String, !token.isEmpty {
                return Found(credential: OCICredential(username: "<token>", password: "", identityToken: token, origin: file))
            }
            if let auth = value["auth"] as? String, !auth.isEmpty {
                guard let data = Data(base64Encoded: auth), let decoded = String(data: data, encoding: .utf8),
                      let colon = decoded.firstIndex(of: ":") else {
                    throw SyncFailure(kind: .terminal, message: "\(file): the \"auth\" of \(key) is not base64 of USERNAME:PASSWORD — log in again")
                }
                return Found(credential: OCICredential(username: String(decoded[..<colon]), password: String(decoded[decoded.index(after: colon)...]), origin: file))
            }
            if let user = value["username"] as? String, let password = value["password"] as? String {
                return Found(credential: OCICredential(username: user, password: password, origin: file))
            }
        }
        let helpers = (object["credHelpers"] as? [String: String]) ?? [:]
        if let helper = candidates.lazy.compactMap({ key in helpers.first { normalize($0.key) == key }?.value }).first ?? (object["credsStore"] as? String),
           !helper.isEmpty, helper.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) }) {
            return Found(credential: nil, note: nil, helper: helper, helperFile: file)
        }
        return Found(credential: nil, note: nil)
    }

    /// Asks a docker credential helper (`docker-credential-<helper> get`, the server on its
    /// standard input, `{"Username", "Secret"}` on its output; `<token>` as the user name means
    /// the secret is an identity token). Nil with a note when it fails or knows no credentials.
    static func fromHelper(_ found: Found, _ reference: OCIReference) async -> (OCICredential?, String?) {
        guard let helper = found.helper, let run = found.run else { return (nil, nil) }
        let origin = "the credential helper docker-credential-\(helper) (named by \(found.helperFile ?? "an auth file"))"
        let server = reference.host == "docker.io" || reference.host == "index.docker.io" ? "https://index.docker.io/v1/" : reference.registry
        struct Answer: Decodable { var Username: String?; var Secret: String? }
        do {
            let output = try await run(["/bin/sh", "-c", #"printf '%s' "$1" | exec "docker-credential-$0" get"#, helper, server])
            guard let answer = try? StrictJSONDecoder().decode(Answer.self, from: Data(output.utf8)), let secret = answer.Secret, !secret.isEmpty else {
                return (nil, "\(origin) gave no credentials for \(server)")
            }
            if answer.Username == "<token>" { return (OCICredential(username: "<token>", password: "", identityToken: secret, origin: origin), nil) }
            return (OCICredential(username: answer.Username ?? "", password: secret, origin: origin), nil)
        } catch {
            let why = (error as? CommandFailure)?.described(as: "command") ?? SyncFailure(error).message
            return (nil, "\(origin) failed (\(why)); is docker-credential-\(helper) on PATH?")
        }
    }

    /// The keys an auth file may hold for `reference`, most specific first.
    static func keys(for reference: OCIReference) -> [String] {
        var hosts = [reference.registry.lowercased()]
        if reference.host == "docker.io" || reference.host == "index.docker.io" || reference.host == "registry-1.docker.io" {
            hosts = ["docker.io", "index.docker.io", "registry-1.docker.io"]
        }
        var out: [String] = []
        let components = reference.repository.split(separator: "/").map(String.init)
        for host in hosts {
            for n in stride(from: components.count, through: 1, by: -1) { out.append(host + "/" + components[0..<n].joined(separator: "/")) }
        }
        return out + hosts
    }

    /// `https://host:port/v1/` → `host:port`; `host/ns/` → `host/ns`.
    static func normalize(_ key: String) -> String {
        var k = key.lowercased()
        for prefix in ["https://", "http://"] where k.hasPrefix(prefix) { k.removeFirst(prefix.count) }
        while k.hasSuffix("/") { k.removeLast() }
        for suffix in ["/v1", "/v2"] where k.hasSuffix(suffix) { k.removeLast(suffix.count) }
        return k
    }
}

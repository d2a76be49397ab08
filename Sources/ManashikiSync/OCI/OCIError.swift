import Foundation
import ManashikiCore

/// Why an OCI registry could not be used: names the registry (never a credential) and says
/// what to do. Code decides by the case, never by the text.
public enum OCIError: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
    /// 401: the registry wants credentials and none were found, or refused the ones sent.
    /// `credentials` names where they came from (a file, a variable), nil when there were none.
    case unauthorized(registry: String, credentials: String?, detail: String)
    /// 403 (`DENIED`): the credentials are valid but may not do this.
    case denied(registry: String, repository: String, detail: String)
    /// The token service named by the registry's challenge failed (not 401).
    case tokenService(registry: String, realm: String, detail: String)
    /// `NAME_UNKNOWN`: no such repository.
    case repositoryUnknown(OCIReference)
    /// `MANIFEST_UNKNOWN`: the repository has no such tag.
    case tagUnknown(OCIReference)
    /// The tag names a manifest of another kind than our artifact.
    case notAnArtifact(OCIReference, found: String)
    /// The artifact is ours but unusable (a config that does not verify, a newer format…).
    case invalidArtifact(OCIReference, detail: String)
    /// Any other answer of the registry's API.
    case registry(registry: String, operation: String, status: Int, code: String?, message: String)

    /// What happened and what to do.
    public var description: String {
        switch self {
        case .unauthorized(let registry, let credentials?, let detail):
            return "\(registry) refused the credentials from \(credentials) (HTTP 401\(detail.isEmpty ? "" : ": \(detail)")) — log in again (e.g. `docker login`, `podman login`, `oras login`) or correct the source's \"credentials\"; nothing was retried"
        case .unauthorized(let registry, nil, let detail):
            return "\(registry) requires credentials and none were found (HTTP 401\(detail.isEmpty ? "" : ": \(detail)")) — log in with `docker login`/`podman login`/`oras login` (auth files: $REGISTRY_AUTH_FILE, $XDG_RUNTIME_DIR/containers/auth.json, ~/.config/containers/auth.json, $DOCKER_CONFIG/config.json or ~/.docker/config.json), or give the source {\"credentials\": {\"file\": …}} or {\"credentials\": {\"env\": …}}"
        case .denied(let registry, let repository, let detail):
            return "\(registry) denied access to \(repository) (HTTP 403\(detail.isEmpty ? "" : ": \(detail)")) — the credentials are valid but lack the permission: ask the registry's administrator (pull for sources, push for export)"
        case .tokenService(let registry, let realm, let detail):
            return "the token service of \(registry) (\(realm)) failed: \(detail) — check the registry's auth configuration, then run again"
        case .repositoryUnknown(let ref):
            return "\(ref.registry) has no repository \(ref.repository) (NAME_UNKNOWN) — check the name; a registry such as Harbor needs its project created before the first push (\(Remedy.export(to: "\(ref.with(tag: ref.tag ?? "TAG"))")))"
        case .tagUnknown(let ref):
            return "\(ref.registry)/\(ref.repository) has no tag \(ref.tag ?? "?") (MANIFEST_UNKNOWN) — check the tag, or push it with \(Remedy.export(to: "\(ref)"))"
        case .notAnArtifact(let ref, let found):
            return "\(ref) is \(found), not a Manashiki model artifact (artifactType \(OCIMediaTypes.artifactType)) — point the source at a tag written by \(Remedy.export(to: "oci://…")), or use another tag"
        case .invalidArtifact(let ref, let detail):
            return "\(ref): \(detail)"
        case .registry(let registry, let operation, let status, let code, let message):
            let what = [code, message.isEmpty ? nil : message].compactMap { $0 }.joined(separator: ": ")
            return "\(registry) answered HTTP \(status) to \(operation)\(what.isEmpty ? "" : " (\(what))")" + (status >= 500 ? " — the registry has a problem; try again later" : "")
        }
    }

    /// The description.
    public var errorDescription: String? { description }

    /// Whether trying again later, unchanged, can help (a 5xx, a 429).
    public var isRetryable: Bool {
        if case .registry(_, _, let status, _, _) = self { return status >= 500 || status == 429 }
        if case .tokenService = self { return true }
        return false
    }

    /// Whether someone must change a setting (credentials, permissions, the reference, the tag).
    public var isConfigurationProblem: Bool {
        switch self {
        case .unauthorized, .denied, .repositoryUnknown, .tagUnknown, .notAnArtifact: return true
        default: return false
        }
    }
}

/// The error body of the distribution API: `{"errors": [{"code": "…", "message": "…"}]}`.
struct OCIErrorBody: Decodable {
    struct Entry: Decodable { var code: String?; var message: String? }
    var errors: [Entry]?

    /// The first error's code and message, when the body is one.
    static func parse(_ data: Data) -> (code: String?, message: String) {
        guard let body = try? StrictJSONDecoder().decode(OCIErrorBody.self, from: data), let first = body.errors?.first else {
            let text = String(decoding: data.prefix(200), as: UTF8.self)
            let printable = text.unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value < 0x7F }
            return (nil, printable ? text : "")
        }
        return (first.code, String((first.message ?? "").prefix(200)))
    }
}

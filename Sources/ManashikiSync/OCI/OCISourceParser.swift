import Foundation
import ManashikiCore
import Manashiki

/// Parses an OCI source: a manifest's `{"oci": "HOST[:PORT]/REPO", "tag": "…", "credentials":
/// {"file"|"env": …}, "allowHTTP": …, "private": …}` and `sync --from oci://HOST/REPO:TAG`.
/// `"oci": "http://HOST/REPO"` asks for plain http: to this machine, or with `"allowHTTP": true`.
enum OCISourceParser {
    static let credentialHint = #"write "credentials": {"file": "/etc/manashiki/registry-auth.json"} (an auth file, as `podman login --authfile` writes) or {"env": "REGISTRY_CREDS"} (USERNAME:PASSWORD)"#

    /// The source of `sources[i]`, or nil with its problems added.
    static func entry(_ o: [String: JSONValue], text: String, at path: String, servesPrivate: Bool, allowHTTP: Bool,
                      problems: inout [ManifestProblem]) -> ArtifactSource? {
        var reference: OCIReference?
        switch OCIReference.parse(text, allowTag: false) {
        case .success(let r): reference = r
        case .failure(let p): problems.append(ManifestProblem(path: ManifestPath.join(path, "oci"), message: p.message, hint: p.hint))
        }
        if let r = reference, r.plainHTTP, !allowHTTP, !LoopbackHost.matches(r.host) {
            problems.append(ManifestProblem(path: ManifestPath.join(path, "oci"), message: "\(r.registry) is plain http to another host",
                                            hint: "use https (write the registry without http://), or add \"allowHTTP\": true — safe for integrity (every byte is verified against its SHA-256) but anyone on the path sees which models are fetched, and credentials would travel in the clear"))
        }
        if let tag = o["tag"] {
            if case .string(let t) = tag, OCIReference.isValidTag(t) { reference?.tag = t } else {
                problems.append(ManifestProblem(path: ManifestPath.join(path, "tag"), message: "must be a tag (up to 128 letters, digits, '_', '.', '-')",
                                                hint: #"write "tag": "v1""#))
            }
        }
        var credentials: OCICredentialSource?
        if let value = o["credentials"] {
            if case .object(let c) = value, c.count == 1, let (key, v) = c.first, case .string(let s) = v, !s.isEmpty, key == "file" || key == "env" {
                credentials = key == "file" ? .file(s) : .environment(s)
            } else {
                problems.append(ManifestProblem(path: ManifestPath.join(path, "credentials"), message: "must be {\"file\": \"…\"} or {\"env\": \"…\"}", hint: credentialHint))
            }
        }
        guard let reference, problems.isEmpty else { return nil }
        var source = ArtifactSource(.oci(reference), servesPrivate: servesPrivate, allowsPlainHTTP: allowHTTP)
        source.credentials = credentials
        return source
    }

    /// `--from oci://HOST/REPO[:TAG]` (plain http, `oci+http://`, only to this machine).
    static func commandLine(_ text: String) -> Result<ArtifactSource, ArtifactSourceParser.URLProblem> {
        switch OCIReference.parse(text) {
        case .failure(let p): return .failure(.init(message: p.message, hint: p.hint))
        case .success(let r):
            if r.plainHTTP && !LoopbackHost.matches(r.host) {
                return .failure(.init(message: "\(r) is plain http to another host",
                                      hint: "use oci://, or list it in the manifest's \"sources\" as {\"oci\": \"http://\(r.registry)/\(r.repository)\", \"allowHTTP\": true}"))
            }
            return .success(ArtifactSource(.oci(r)))
        }
    }
}

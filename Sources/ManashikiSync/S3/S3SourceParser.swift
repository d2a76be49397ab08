import Foundation
import ManashikiCore
import Manashiki

/// Parses a bucket source: `{"s3": "s3://bucket/prefix/", "endpoint": "https://…", "region": "…",
/// "addressing": "auto|path|virtual", "credentials": "chain" | "anonymous" | {"profile": "…"} |
/// {"env": {"accessKeyId": "VAR", "secretAccessKey": "VAR", "sessionToken": "VAR"}},
/// "requesterPays": false, "allowHTTP": false, "private": false}`. Credentials are references only:
/// a key in the manifest is refused.
enum S3SourceParser {
    static let keys = ["endpoint", "region", "addressing", "requesterPays"]
    static let credentialHint = #"write "credentials": "chain" (the default: environment, AWS_PROFILE, web identity, container, instance metadata), "anonymous", {"profile": "NAME"} or {"env": {"accessKeyId": "VAR", "secretAccessKey": "VAR"}}"#

    /// The source of `sources[i]`, or nil with its problems added.
    static func entry(_ o: [String: JSONValue], text: String, at path: String, servesPrivate: Bool, allowHTTP: Bool,
                      problems: inout [ManifestProblem]) -> ArtifactSource? {
        var settings: S3Settings?
        switch S3Location.parse(text) {
        case .success(let location): settings = S3Settings(location, allowsPlainHTTP: allowHTTP)
        case .failure(let problem): problems.append(ManifestProblem(path: ManifestPath.join(path, "s3"), message: problem.message, hint: problem.hint))
        }
        if let value = o["endpoint"] {
            if case .string(let text) = value, let url = endpoint(text, allowHTTP: allowHTTP, at: ManifestPath.join(path, "endpoint"), problems: &problems) {
                settings?.endpoint = url
            } else if case .string = value {} else {
                problems.append(ManifestProblem(path: ManifestPath.join(path, "endpoint"), message: "must be a URL string", hint: #"write "endpoint": "https://minio.example:9000""#))
            }
        }
        if let value = o["region"] {
            if case .string(let region) = value, S3Settings.isRegion(region) { settings?.region = region } else {
                problems.append(ManifestProblem(path: ManifestPath.join(path, "region"), message: "must be a region name (letters, digits and '-')", hint: #"write "region": "eu-west-1""#))
            }
        }
        if let value = o["addressing"] {
            if case .string(let text) = value, let addressing = S3Addressing(rawValue: text) { settings?.addressing = addressing } else {
                problems.append(ManifestProblem(path: ManifestPath.join(path, "addressing"), message: "must be \"auto\", \"path\" or \"virtual\"",
                                                hint: "\"auto\" (the default) is path-style whenever an endpoint is set"))
            }
        }
        if let value = o["requesterPays"] {
            if case .bool(let pays) = value { settings?.requesterPays = pays } else {
                problems.append(ManifestProblem(path: ManifestPath.join(path, "requesterPays"), message: "must be true or false, not \(value.typeName)"))
            }
        }
        if let value = o["credentials"] {
            if let source = credentials(value, at: ManifestPath.join(path, "credentials"), problems: &problems) { settings?.credentials = source }
        }
        guard let settings, problems.isEmpty else { return nil }
        return ArtifactSource(.s3(settings), servesPrivate: servesPrivate, allowsPlainHTTP: allowHTTP)
    }

    /// An endpoint: an absolute http(s) URL without credentials, query or fragment; plain http
    /// only to this machine or with `allowHTTP`.
    static func endpoint(_ text: String, allowHTTP: Bool, at path: String, problems: inout [ManifestProblem]) -> URL? {
        switch ArtifactSourceParser.mirrorURL(text, allowHTTP: allowHTTP) {
        case .success(let url): return url
        case .failure(let problem):
            let hint = problem.isPlainHTTP
                ? "use https, or add \"allowHTTP\": true — requests are signed, but anyone on the path sees which models are fetched"
                : problem.message.contains("credentials") ? "keep credentials out of the URL: give them with \"credentials\"" : "write it like https://minio.example:9000"
            problems.append(ManifestProblem(path: path, message: problem.message.replacingOccurrences(of: "a mirror never receives credentials", with: "an endpoint takes none"), hint: hint))
            return nil
        }
    }


    /// The credentials reference.
    static func credentials(_ value: JSONValue, at path: String, problems: inout [ManifestProblem]) -> S3CredentialSource? {
        switch value {
        case .string("chain"): return .chain
        case .string("anonymous"): return .anonymous
        case .object(let o) where o.keys.contains(where: { ["accessKeyId", "secretAccessKey", "aws_access_key_id", "aws_secret_access_key", "secret", "sessionToken"].contains($0) }):
            problems.append(ManifestProblem(path: path, message: "holds a key itself; a manifest never holds secrets (it is copied, committed and shown)",
                                            hint: #"name where the key is instead: {"env": {"accessKeyId": "VAR", "secretAccessKey": "VAR"}} or {"profile": "NAME"}"#))
            return nil
        case .object(let o) where o.count == 1:
            if case .string(let name)? = o["profile"], !name.isEmpty, !name.contains("]") { return .profile(name) }
            if case .object(let env)? = o["env"] { return environment(env, at: ManifestPath.join(path, "env"), problems: &problems) }
        default:
            break
        }
        problems.append(ManifestProblem(path: path, message: "is not a credentials reference", hint: credentialHint))
        return nil
    }

    private static func environment(_ env: [String: JSONValue], at path: String, problems: inout [ManifestProblem]) -> S3CredentialSource? {
        func name(_ key: String) -> String? {
            guard case .string(let v)? = env[key], !v.isEmpty, v.unicodeScalars.allSatisfy({ $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "_") }) else { return nil }
            return v
        }
        for key in env.keys.sorted() where !["accessKeyId", "secretAccessKey", "sessionToken"].contains(key) {
            problems.append(ManifestProblem(path: ManifestPath.join(path, key), message: "unknown key", hint: "the keys are accessKeyId, secretAccessKey and sessionToken, each the name of an environment variable"))
        }
        guard let id = name("accessKeyId"), let secret = name("secretAccessKey"), env["sessionToken"] == nil || name("sessionToken") != nil else {
            problems.append(ManifestProblem(path: path, message: "needs accessKeyId and secretAccessKey, each the name of an environment variable (letters, digits, '_')",
                                            hint: #"write {"env": {"accessKeyId": "MODELS_KEY_ID", "secretAccessKey": "MODELS_SECRET"}}"#))
            return nil
        }
        return .environment(accessKeyId: id, secretAccessKey: secret, sessionToken: name("sessionToken"))
    }
}

import Foundation
import Manashiki
import ManashikiCore

/// `models[i].session`: where a private model's session token comes from.
extension ManifestValidator {
    mutating func sessionSource(_ value: JSONValue, at path: String) -> SessionSource? {
        let hint = #"write {"env": "VAR"}, {"file": "path"}, {"command": ["/path/to/tool", "arg"]} or {"mint": {"principalId": "…"}}"#
        if case .string = value {
            if !problems.contains(where: { $0.path == path }) {
                problems.append(ManifestProblem(path: path, message: "must be an object naming where the token comes from, not a string", hint: hint))
            }
            return nil
        }
        guard let o = object(value, at: path, known: Self.sessionKeys) else { return nil }
        guard o.count == 1, let (key, inner) = o.first else {
            problems.append(ManifestProblem(path: path, message: "must have exactly one of \"env\", \"file\", \"command\" or \"mint\"", hint: hint))
            return nil
        }
        switch key {
        case "env": return string(o, "env", at: path, nonEmpty: true).map { .environment($0) }
        case "file": return string(o, "file", at: path, nonEmpty: true).map { .file($0) }
        case "command":
            if case .array(let parts) = inner, !parts.isEmpty {
                let argv = parts.compactMap { part -> String? in if case .string(let s) = part { return s } else { return nil } }
                if argv.count == parts.count, !argv[0].isEmpty { return .command(argv) }
            }
            problems.append(ManifestProblem(path: "\(path).command", message: "must be a non-empty array of strings (argv; no shell)", hint: #"write ["/usr/local/bin/fetch-session", "--model", "x"]"#))
            return nil
        default:
            guard let m = object(inner, at: "\(path).mint", known: Self.mintKeys) else { return nil }
            let principal = string(m, "principalId", at: "\(path).mint", nonEmpty: true)
            if m["principalId"] == nil {
                problems.append(ManifestProblem(path: "\(path).mint.principalId", message: "is missing", hint: "name who the session is for, e.g. \"fleet-agent\""))
            }
            let ttl = int(m, "ttlSec", at: "\(path).mint", range: ManashikiClient.sessionTTLRange) ?? 3600
            return principal.map { .mint(principalId: $0, ttlSec: ttl) }
        }
    }
}

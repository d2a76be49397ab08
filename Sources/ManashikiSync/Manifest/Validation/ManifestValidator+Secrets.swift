import Foundation
import Manashiki
import ManashikiCore

/// Secrets anywhere in the document.
extension ManifestValidator {
    /// Refuses anything that looks like an API key or a session token, anywhere, without echoing it.
    mutating func refuseSecrets(in root: JSONValue) {
        let separators = CharacterSet.whitespacesAndNewlines.union(CharacterSet(charactersIn: "\"'=:,;/()[]{}<>"))
        for (path, text) in root.strings(at: "") {
            let tokens = [text] + text.components(separatedBy: separators).filter { !$0.isEmpty }
            if tokens.contains(where: APIKey.isValid) {
                problems.append(ManifestProblem(
                    path: path,
                    message: "contains what looks like an API key; literal keys are refused because manifests get committed (the value is not shown)",
                    hint: #"remove it (and revoke the key if this file was shared), then use "apiKey": {"env": "MANASHIKI_API_KEY"} or {"file": "path/to/key"}"#))
            } else if tokens.contains(where: { $0.hasPrefix("mks_") && $0.count >= 16 }) {
                problems.append(ManifestProblem(
                    path: path,
                    message: "contains what looks like a session token; tokens are secrets and expire (the value is not shown)",
                    hint: #"use "session": {"env": "…"}, {"file": "…"}, {"command": […]} or {"mint": {…}}"#))
            }
        }
    }
}

import Foundation
import Manashiki
import ManashikiCore

/// `registry`: the origin, the API key source and the CA bundle.
extension ManifestValidator {
    mutating func registrySettings(_ o: [String: JSONValue]) -> RegistrySettings {
        var settings = RegistrySettings()
        if let text = string(o, "baseURL", at: "registry") {
            if let url = URL(string: text), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
               scheme == "https" || (scheme == "http" && LoopbackHost.matches(host)) {
                settings.baseURL = url
            } else {
                problems.append(ManifestProblem(path: "registry.baseURL", message: "\"\(text)\" is not an https URL (http is allowed only for localhost)", hint: #"use "https://models.manashiki.com""#))
            }
        }
        if let value = o["apiKey"] { settings.apiKey = keySource(value, at: "registry.apiKey") ?? .default }
        // The file itself is checked once paths can be resolved (`Manifest.tlsTrust()`).
        settings.caBundle = string(o, "caBundle", at: "registry", nonEmpty: true)
        return settings
    }

    mutating func keySource(_ value: JSONValue, at path: String) -> KeySource? {
        let hint = #"write {"env": "MANASHIKI_API_KEY"} or {"file": "path/to/key"}"#
        if case .string = value {
            // A literal key is reported by refuseSecrets; anything else is a type error.
            if !problems.contains(where: { $0.path == path }) {
                problems.append(ManifestProblem(path: path, message: "must be an object naming where the key comes from, not a string", hint: hint))
            }
            return nil
        }
        guard let o = object(value, at: path, known: Self.keySourceKeys) else { return nil }
        guard o.count == 1 else {
            problems.append(ManifestProblem(path: path, message: "must have exactly one of \"env\" or \"file\"", hint: hint))
            return nil
        }
        if let name = string(o, "env", at: path, nonEmpty: true) { return .environment(name) }
        if let file = string(o, "file", at: path, nonEmpty: true) { return .file(file) }
        return nil
    }
}

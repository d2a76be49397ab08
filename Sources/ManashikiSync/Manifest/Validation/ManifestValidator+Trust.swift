import Foundation
import Manashiki
import ManashikiCore

/// `trust`: signed metadata (`tuf`), and the other mechanisms beside it.
extension ManifestValidator {
    static let trustKeys = ["tuf"]
    static let tufKeys = ["metadataURL", "root"]

    mutating func trustSettings(_ o: [String: JSONValue]) -> TrustSettings {
        var settings = TrustSettings()
        if let value = o["tuf"], let tuf = object(value, at: "trust.tuf", known: Self.tufKeys) { settings.tuf = tufSettings(tuf) }
        return settings
    }

    mutating func tufSettings(_ o: [String: JSONValue]) -> TUFSettings? {
        let example = #""metadataURL": "https://models.example.com/tuf/metadata/""#
        var url: URL?
        if let text = string(o, "metadataURL", at: "trust.tuf", nonEmpty: true) {
            if let parsed = URL(string: text), let scheme = parsed.scheme?.lowercased(), let host = parsed.host, !host.isEmpty,
               scheme == "https" || (scheme == "http" && LoopbackHost.matches(host)) {
                url = parsed
            } else {
                problems.append(ManifestProblem(path: "trust.tuf.metadataURL", message: "\"\(text)\" is not an https URL (http is allowed only for localhost)",
                                                hint: "write \(example)"))
            }
        } else if o["metadataURL"] == nil {
            problems.append(ManifestProblem(path: "trust.tuf.metadataURL", message: "is missing", hint: "add \(example), the directory that holds timestamp.json"))
        }
        let root = o["root"].flatMap { tufRoot($0) }
        if o["root"] == nil {
            problems.append(ManifestProblem(path: "trust.tuf.root", message: "is missing",
                                            hint: #"add "root": {"file": "/etc/manashiki/root.json"}, the repository's root.json as its publisher distributes it"#))
        }
        guard let url, let root else { return nil }
        return TUFSettings(metadataURL: url, root: root)
    }

    private mutating func tufRoot(_ value: JSONValue) -> TUFSettings.RootSource? {
        let hint = #"write {"file": "path/to/root.json"} or the root metadata itself ({"signed": …, "signatures": […]})"#
        guard case .object(let o) = value else {
            problems.append(ManifestProblem(path: "trust.tuf.root", message: "must be an object, not \(value.typeName)", hint: hint))
            return nil
        }
        if o["file"] != nil {
            guard o.count == 1 else {
                problems.append(ManifestProblem(path: "trust.tuf.root", message: "has \"file\" and other keys", hint: hint))
                return nil
            }
            return string(o, "file", at: "trust.tuf.root", nonEmpty: true).map { .file($0) }
        }
        guard case .object(let signed)? = o["signed"], case .array? = o["signatures"], signed["_type"] == .string("root") else {
            problems.append(ManifestProblem(path: "trust.tuf.root", message: "is neither {\"file\": …} nor root metadata (\"signed\" with \"_type\": \"root\", and \"signatures\")", hint: hint))
            return nil
        }
        return .inline(value)
    }
}

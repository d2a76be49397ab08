import Foundation
import Manashiki
import ManashikiCore

/// `trust`: signed metadata (`trust.tuf`) and publisher signatures (`trust.modelSigning`). Key,
/// root and root-metadata files are read once paths can be resolved (`Manifest.tufRootData()`,
/// `Manifest.publisherTrust()`).
extension ManifestValidator {
    static let trustKeys = ["tuf", "modelSigning"]
    static let tufKeys = ["metadataURL", "root"]
    static let modelSigningKeys = ["keys", "roots", "signatureURL", "subject", "default"]
    static let pemSourceKeys = ["file", "pem"]

    mutating func trustSettings(_ o: [String: JSONValue]) -> TrustSettings {
        var settings = TrustSettings()
        if let value = o["tuf"], let tuf = object(value, at: "trust.tuf", known: Self.tufKeys) { settings.tuf = tufSettings(tuf) }
        if let value = o["modelSigning"], let section = object(value, at: "trust.modelSigning", known: Self.modelSigningKeys) {
            settings.modelSigning = modelSigning(section)
        }
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

    private mutating func modelSigning(_ o: [String: JSONValue]) -> ModelSigningSettings {
        let path = "trust.modelSigning"
        var settings = ModelSigningSettings()
        settings.keys = pemSources(o["keys"], at: "\(path).keys", what: "public key")
        settings.roots = pemSources(o["roots"], at: "\(path).roots", what: "root certificate")
        if settings.keys.isEmpty && settings.roots.isEmpty && !problems.contains(where: { $0.path.hasPrefix(path) }) {
            problems.append(ManifestProblem(path: path, message: "pins no publisher key and no root certificate, so no signature could ever verify",
                                            hint: #"add "keys": [{"file": "publisher.pub.pem"}] or "roots": [{"file": "publisher-ca.pem"}]"#))
        }
        if let text = string(o, "signatureURL", at: path, nonEmpty: true) { settings.signatureURL = signatureTemplate(text, at: "\(path).signatureURL") }
        if let text = string(o, "subject", at: path) {
            if let binding = PublisherTrust.SubjectBinding(rawValue: text) { settings.subject = binding } else {
                problems.append(ManifestProblem(path: "\(path).subject", message: "\"\(text)\" is not a subject binding",
                                                hint: oneOf(PublisherTrust.SubjectBinding.allCases.map(\.rawValue), near: text)))
            }
        }
        if let requirement = signatureRequirement(o, "default", at: path) { settings.defaultRequirement = requirement }
        return settings
    }

    /// `"required"` or `"optional"` at `o[key]`.
    mutating func signatureRequirement(_ o: [String: JSONValue], _ key: String, at path: String) -> SignatureRequirement? {
        guard let text = string(o, key, at: path) else { return nil }
        guard let requirement = SignatureRequirement(rawValue: text) else {
            problems.append(ManifestProblem(path: ManifestPath.join(path, key), message: "\"\(text)\" is not a signature requirement",
                                            hint: oneOf(SignatureRequirement.allCases.map(\.rawValue), near: text)))
            return nil
        }
        return requirement
    }

    private mutating func pemSources(_ value: JSONValue?, at path: String, what: String) -> [PEMSource] {
        guard let value else { return [] }
        let hint = #"write [{"file": "path/to/file.pem"}] or [{"pem": "-----BEGIN …"}]"#
        guard case .array(let items) = value else {
            problems.append(ManifestProblem(path: path, message: "must be an array of \(what) sources, not \(value.typeName)", hint: hint))
            return []
        }
        var sources: [PEMSource] = []
        for (i, item) in items.enumerated() {
            let itemPath = "\(path)[\(i)]"
            guard let o = object(item, at: itemPath, known: Self.pemSourceKeys) else { continue }
            guard o.count == 1 else {
                problems.append(ManifestProblem(path: itemPath, message: "must have exactly one of \"file\" or \"pem\"", hint: hint))
                continue
            }
            if let file = string(o, "file", at: itemPath, nonEmpty: true) { sources.append(.file(file)) }
            if let pem = string(o, "pem", at: itemPath, nonEmpty: true) {
                if pem.contains("PRIVATE KEY") {
                    problems.append(ManifestProblem(path: "\(itemPath).pem", message: "holds a private key (the value is not shown)",
                                                    hint: "pin the publisher's public key (openssl pkey -pubout) or certificate; a private key never belongs in a manifest"))
                } else { sources.append(.inline(pem)) }
            }
        }
        return sources
    }

    /// An https URL (http only to this machine) whose only placeholders are `{modelId}`,
    /// `{version}` and `{sha256}`.
    private mutating func signatureTemplate(_ text: String, at path: String) -> String? {
        var rest = text
        for placeholder in ModelSigningSettings.placeholders { rest = rest.replacingOccurrences(of: placeholder, with: "x") }
        if rest.contains("{") || rest.contains("}") {
            problems.append(ManifestProblem(path: path, message: "\"\(text)\" has a placeholder other than \(ModelSigningSettings.placeholders.joined(separator: ", "))",
                                            hint: #"write e.g. "https://signatures.example.com/{modelId}/{version}/model.sig""#))
            return nil
        }
        guard let url = URL(string: rest), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty,
              scheme == "https" || (scheme == "http" && LoopbackHost.matches(host)), url.user == nil, url.password == nil else {
            problems.append(ManifestProblem(path: path, message: "\"\(text)\" is not an https URL (http is allowed only for localhost; no credentials in it)",
                                            hint: #"write e.g. "https://signatures.example.com/{modelId}/{version}/model.sig""#))
            return nil
        }
        return text
    }
}

import Foundation
import Manashiki
import ManashikiCore

/// `models`: one entry per model.
extension ManifestValidator {
    mutating func modelSpecs(_ items: [JSONValue]) -> [ModelSpec] {
        var specs: [ModelSpec] = []
        var firstIndex: [String: Int] = [:]
        for (i, item) in items.enumerated() {
            let path = "models[\(i)]"
            guard let o = object(item, at: path, known: Self.modelKeys) else { continue }
            guard let id = string(o, "id", at: path) else {
                if o["id"] == nil { problems.append(ManifestProblem(path: "\(path).id", message: "is missing", hint: #"add "id": "<model id from the catalog>""#)) }
                continue
            }
            guard ModelID.isValid(id) else {
                problems.append(ManifestProblem(path: "\(path).id", message: "\"\(id)\" is not a valid model id", hint: "ids are 1-128 lowercase letters, digits, '.', '_' and '-', starting and ending with a letter or digit, without '..'"))
                continue
            }
            if let first = firstIndex[id] {
                problems.append(ManifestProblem(path: "\(path).id", message: "duplicate id \"\(id)\" (already at models[\(first)])", hint: "keep one entry per model; use \"platforms\" on a single entry to target several platforms"))
                continue
            }
            firstIndex[id] = i
            var spec = ModelSpec(id: id)
            if let text = string(o, "version", at: path) {
                do { spec.version = try VersionRequirement(parsing: text) } catch let e as VersionRequirement.ParseError {
                    problems.append(ManifestProblem(path: "\(path).version", message: e.message, hint: e.hint))
                } catch {}
            }
            if let sha = string(o, "sha256", at: path) {
                if Hex.isSHA256(sha) { spec.sha256 = sha } else {
                    problems.append(ManifestProblem(path: "\(path).sha256", message: "is not 64 lowercase hex characters", hint: "copy the digest from the catalog (GET /api/models) or `shasum -a 256`"))
                }
            }
            if let value = o["platforms"] {
                if case .array(let list) = value, !list.isEmpty {
                    let platforms = list.enumerated().compactMap { platformValue($0.element, at: "\(path).platforms[\($0.offset)]") }
                    if platforms.count == list.count { spec.platforms = platforms }
                } else {
                    problems.append(ManifestProblem(path: "\(path).platforms", message: "must be a non-empty array of platforms", hint: "omit it to apply to every platform, or list some of \(Platform.known.map(\.rawValue).joined(separator: ", "))"))
                }
            }
            if let value = o["session"] { spec.session = sessionSource(value, at: "\(path).session") }
            classify(&spec, o, at: path)
            spec.signature = signatureRequirement(o, "signature", at: path)
            specs.append(spec)
        }
        return specs
    }

    /// A model's `"signature"` needs a `trust.modelSigning` section to mean anything.
    mutating func checkSignatureRequirements(_ manifest: Manifest) {
        guard manifest.trust.modelSigning == nil else { return }
        for (i, spec) in manifest.models.enumerated() where spec.signature != nil {
            problems.append(ManifestProblem(path: "models[\(i)].signature", message: "needs a trust.modelSigning section (pinned publisher keys or roots) to check signatures against",
                                            hint: #"add "trust": {"modelSigning": {"keys": [{"file": "publisher.pub.pem"}]}}, or remove "signature""#))
        }
    }

    /// `class`, `optional` (its older spelling) and `priority`, which must agree.
    mutating func classify(_ spec: inout ModelSpec, _ o: [String: JSONValue], at path: String) {
        let optional = bool(o, "optional", at: path)
        var named: ModelClass?
        if let text = string(o, "class", at: path) {
            named = ModelClass(rawValue: text)
            if named == nil {
                problems.append(ManifestProblem(path: "\(path).class", message: "\"\(text)\" is not a model class",
                                                hint: oneOf(ModelClass.allCases.map(\.rawValue), near: text)))
            }
        }
        if let optional, let named, optional != (named == .optional) {
            problems.append(ManifestProblem(path: "\(path).optional", message: "\(optional) contradicts \"class\": \"\(named)\"",
                                            hint: #"remove "optional": "class" says it"#))
        }
        spec.modelClass = named ?? (optional == true ? .optional : .required)
        if let n = int(o, "priority", at: path, range: -1000...1000) {
            let classUnreadable = o["class"] != nil && named == nil // already reported
            if spec.modelClass == .required && !classUnreadable {
                problems.append(ManifestProblem(path: "\(path).priority", message: "applies only to optional and on-demand models (this entry is required)",
                                                hint: #"add "class": "optional", or remove "priority""#))
            } else { spec.priority = n }
        }
    }
}

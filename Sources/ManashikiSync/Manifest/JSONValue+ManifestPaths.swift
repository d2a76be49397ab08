import Foundation
import ManashikiCore

extension JSONValue {
    /// Every string in the value (object keys included) with its manifest path.
    func strings(at path: String) -> [(path: String, value: String)] {
        switch self {
        case .string(let s): return [(path, s)]
        case .array(let items):
            return items.enumerated().flatMap { $0.element.strings(at: "\(path)[\($0.offset)]") }
        case .object(let members):
            return members.sorted { $0.key < $1.key }.flatMap { key, value in
                [(ManifestPath.join(path, key), key)] + value.strings(at: ManifestPath.join(path, key))
            }
        default: return []
        }
    }
}

/// JSON paths as manifests errors print them: `models[3].version`.
enum ManifestPath {
    static func join(_ base: String, _ key: String) -> String { base.isEmpty ? key : "\(base).\(key)" }
}

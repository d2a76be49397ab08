import Foundation

/// Any JSON value, decoded with `JSONDecoder` so a manifest can be validated as a whole
/// (every problem at once, each with its path) instead of stopping at the first error.
enum JSONValue: Sendable, Hashable, Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    /// The JSON type's name, for messages.
    var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Every string in the value (object keys included) with its path.
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

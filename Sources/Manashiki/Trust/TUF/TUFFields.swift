import Foundation
import ManashikiCore

/// Reads the members of one JSON object of TUF metadata, each by its name, each refusal a
/// `TUFError.malformed` naming the role and the member's path (`signed.roles.root.threshold`).
struct TUFFields {
    let members: [String: JSONValue]
    let path: String
    let role: String

    init(_ value: JSONValue, path: String, role: String) throws(TUFError) {
        guard case .object(let members) = value else { throw TUFError(role: role, reason: .malformed("\(path) is not an object")) }
        self.members = members
        self.path = path
        self.role = role
    }

    func fail(_ what: String) -> TUFError { TUFError(role: role, reason: .malformed(what)) }

    func name(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func value(_ key: String) throws(TUFError) -> JSONValue {
        guard let v = members[key] else { throw fail("\(name(key)) is missing") }
        return v
    }

    func string(_ key: String) throws(TUFError) -> String {
        guard case .string(let s) = try value(key) else { throw fail("\(name(key)) is not a string") }
        return s
    }

    func int(_ key: String) throws(TUFError) -> Int {
        guard case .int(let i) = try value(key) else { throw fail("\(name(key)) is not an integer") }
        return i
    }

    func optionalInt(_ key: String) throws(TUFError) -> Int? {
        members[key] == nil ? nil : try int(key)
    }

    func bool(_ key: String) throws(TUFError) -> Bool {
        guard case .bool(let b) = try value(key) else { throw fail("\(name(key)) is not true or false") }
        return b
    }

    func object(_ key: String) throws(TUFError) -> TUFFields {
        try TUFFields(value(key), path: name(key), role: role)
    }

    func array(_ key: String) throws(TUFError) -> [JSONValue] {
        guard case .array(let a) = try value(key) else { throw fail("\(name(key)) is not an array") }
        return a
    }

    func strings(_ key: String) throws(TUFError) -> [String] {
        var out: [String] = []
        for (i, item) in try array(key).enumerated() {
            guard case .string(let s) = item else { throw fail("\(name(key))[\(i)] is not a string") }
            out.append(s)
        }
        return out
    }

    /// A positive integer (versions).
    func positive(_ key: String) throws(TUFError) -> Int {
        let v = try int(key)
        guard v > 0 else { throw fail("\(name(key)) must be greater than 0, not \(v)") }
        return v
    }

    /// `{"sha256": "<hex>", ...}`, not empty.
    func hashes(_ key: String) throws(TUFError) -> [String: String] {
        let fields = try object(key)
        guard !fields.members.isEmpty else { throw fail("\(name(key)) is empty") }
        var out: [String: String] = [:]
        for algorithm in fields.members.keys { out[algorithm] = try fields.string(algorithm) }
        return out
    }
}

/// A value canonical JSON cannot hold: a non-integral number.
package struct CanonicalJSONError: Error, Sendable, Hashable {
    /// The JSON path of the value (`signed.meta["snapshot.json"].version`).
    package var path: String

    /// An error at `path`.
    package init(path: String) { self.path = path }
}

extension JSONValue {
    /// The canonical JSON of this value exactly as securesystemslib's `encode_canonical` writes it
    /// (the bytes TUF signs): object keys sorted by code point, no whitespace, integers only,
    /// strings with only `"` and `\` escaped and every other character (control characters
    /// included) as its raw UTF-8.
    /// - Throws: `CanonicalJSONError` for a non-integral number, which canonical JSON refuses.
    package func canonicalBytes() throws(CanonicalJSONError) -> [UInt8] {
        var out: [UInt8] = []
        try Self.writeCanonical(self, to: &out, path: "")
        return out
    }

    private static func writeCanonical(_ value: JSONValue, to out: inout [UInt8], path: String) throws(CanonicalJSONError) {
        switch value {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .int(let i): out += Array(String(i).utf8)
        case .double: throw CanonicalJSONError(path: path)
        case .string(let s): writeCanonical(string: s, to: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                try writeCanonical(item, to: &out, path: "\(path)[\(i)]")
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            // Python sorts str keys by code point; Swift's String `<` compares canonical
            // equivalents as equal, so compare the scalars.
            let keys = members.keys.sorted { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }
            for (i, key) in keys.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                writeCanonical(string: key, to: &out)
                out.append(UInt8(ascii: ":"))
                try writeCanonical(members[key] ?? .null, to: &out, path: path.isEmpty ? key : "\(path).\(key)")
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func writeCanonical(string: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { out.append(UInt8(ascii: "\\")) }
            out.append(byte)
        }
        out.append(UInt8(ascii: "\""))
    }
}

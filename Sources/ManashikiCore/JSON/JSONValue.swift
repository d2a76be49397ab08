import Foundation

/// Any JSON value, `Sendable` and `Hashable`: the one JSON tree of the package. The manifest
/// is validated on it (every problem at once, with its path), the development registry keeps
/// the free-form parts of its records in it (`card`, `lineage`, `format`, `metrics`, extra
/// fields). `JSONValue.parse(_:)` reads it strictly (no trailing commas, no duplicate keys).
///
/// ```swift
/// let card: JSONValue = ["title": "Tiny", "tags": ["asr", "en"]]
/// let manifest = try JSONValue.parse(data)        // throws JSONSyntaxError with the JSON path
/// ```
public enum JSONValue: Sendable, Hashable, Decodable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer.
    case int(Int)
    /// A non-integral number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A Boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    /// `nil`, meaning JSON `null`.
    public init(nilLiteral: ()) { self = .null }

    /// Converts a `JSONSerialization` object graph. Returns nil for anything JSON cannot hold.
    public init?(foundation value: Any) {
        switch value {
        case is NSNull: self = .null
        case let n as NSNumber:
            if String(cString: n.objCType) == "c" { self = .bool(n.boolValue); return }
            let d = n.doubleValue
            if d.rounded() == d, abs(d) < 9.0e15 { self = .int(n.intValue) } else { self = .double(d) }
        case let s as String: self = .string(s)
        case let a as [Any]:
            var out: [JSONValue] = []
            for element in a {
                guard let v = JSONValue(foundation: element) else { return nil }
                out.append(v)
            }
            self = .array(out)
        case let o as [String: Any]:
            var out: [String: JSONValue] = [:]
            for (k, element) in o {
                guard let v = JSONValue(foundation: element) else { return nil }
                out[k] = v
            }
            self = .object(out)
        default: return nil
        }
    }

    /// The value as a `JSONSerialization` object graph.
    public var foundationValue: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let b): return b
        case .int(let i): return i
        case .double(let d): return d
        case .string(let s): return s
        case .array(let a): return a.map(\.foundationValue)
        case .object(let o): return o.mapValues(\.foundationValue)
        }
    }

    /// Decodes any JSON through a `Decoder` (lenient: the decoder's own parser decides what is
    /// valid; use `parse(_:)` for strict parsing).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    /// The value of a number (integral or not); nil for other types.
    public var number: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }

    /// The JSON type's name, for messages: `a string`, `an object`…
    public var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .int, .double: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

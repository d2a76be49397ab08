import Foundation

/// A JSON value, for the free-form parts of a registry record (`card`, `lineage`, `format`,
/// `metrics`, extra fields) in a form that is `Sendable` and `Hashable`.
///
/// ```swift
/// let card: JSONValue = ["title": "Tiny", "tags": ["asr", "en"]]
/// ```
public enum JSONValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
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
            if JSONBody.isBoolean(n) { self = .bool(n.boolValue); return }
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
}

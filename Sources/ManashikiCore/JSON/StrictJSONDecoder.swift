import Foundation

/// Decodes `Decodable` values from JSON read by the strict parser (`JSONValue.parse`): the one
/// JSON reader of every document the package reads (state, sidecars, records, indexes,
/// catalogs, OCI manifests), so each refuses duplicate keys, trailing commas and documents
/// over the `JSONLimits` the same way, and none builds more than a fixed multiple of its input.
///
/// Decodes as `JSONDecoder` does by default: a number decodes as any numeric type it fits
/// exactly, `Data` from base64, `URL` from a string; `Date` by `dates` (seconds since 2001 by
/// default, as `JSONDecoder`). Failures are `DecodingError`s with the coding path
/// (`DecodingErrorText` words them), a document that is not valid JSON
/// `DecodingError.dataCorrupted` whose underlying error is the `JSONSyntaxError`.
///
/// ```swift
/// let state = try StrictJSONDecoder().decode(StoreState.self, from: data)
/// ```
package struct StrictJSONDecoder: Sendable {
    /// How `Date`s are read.
    package enum DateDecoding: Sendable {
        /// `Date`'s own `Decodable` (seconds since 2001-01-01).
        case deferredToDate
        /// An ISO 8601 string with or without fractional seconds.
        case iso8601
    }

    /// The parser's limits.
    package var limits: JSONLimits
    /// How dates are read.
    package var dates: DateDecoding

    /// A decoder.
    package init(limits: JSONLimits = .default, dates: DateDecoding = .deferredToDate) {
        self.limits = limits
        self.dates = dates
    }

    /// Parses `data` strictly and decodes a `T` from it.
    /// - Throws: `DecodingError`.
    package func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        let value: JSONValue
        do { value = try JSONValue.parse(data, limits: limits) } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: [], debugDescription: "not valid JSON: \(error)", underlyingError: error))
        }
        return try decode(type, from: value)
    }

    /// Decodes a `T` from an already parsed tree.
    /// - Throws: `DecodingError`.
    package func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try JSONTreeDecoder(value, path: [], dates: dates).decodeValue(type)
    }
}

/// The `Decoder` over one `JSONValue` of a tree.
struct JSONTreeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    let dates: StrictJSONDecoder.DateDecoding
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(_ value: JSONValue, path: [any CodingKey], dates: StrictJSONDecoder.DateDecoding) {
        self.value = value
        self.codingPath = path
        self.dates = dates
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else { throw mismatch([String: Any].self) }
        return KeyedDecodingContainer(JSONKeyedContainer<Key>(members: members, decoder: self))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let items) = value else { throw mismatch([Any].self) }
        return JSONUnkeyedContainer(items: items, decoder: self)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { JSONSingleValueContainer(decoder: self) }

    /// A decoder for a child value at `key`.
    func child(_ value: JSONValue, at key: any CodingKey) -> JSONTreeDecoder {
        JSONTreeDecoder(value, path: codingPath + [key], dates: dates)
    }

    func mismatch(_ type: Any.Type) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, DecodingError.Context(codingPath: codingPath, debugDescription: "Cannot get \(type) -- found null value instead"))
        }
        return .typeMismatch(type, DecodingError.Context(codingPath: codingPath, debugDescription: "Expected to decode \(type) but found \(value.typeName) instead."))
    }

    /// Decodes `T`, with the special cases `JSONDecoder` has (`Date`, `Data`, `URL`).
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        if T.self == JSONValue.self { return value as! T } // free-form fields (a record's card) as parsed
        if T.self == Date.self, case .iso8601 = dates {
            guard case .string(let text) = value else { throw mismatch(String.self) }
            guard let date = Self.iso8601(text) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return date as! T
        }
        if T.self == Data.self {
            guard case .string(let text) = value else { throw mismatch(String.self) }
            guard let data = Data(base64Encoded: text) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: "Encountered Data is not valid Base64."))
            }
            return data as! T
        }
        if T.self == URL.self {
            guard case .string(let text) = value else { throw mismatch(String.self) }
            guard let url = URL(string: text) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: "Invalid URL string."))
            }
            return url as! T
        }
        return try T(from: self)
    }

    static func iso8601(_ text: String) -> Date? {
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }

    // MARK: Scalars

    func decodeBool() throws -> Bool {
        guard case .bool(let b) = value else { throw mismatch(Bool.self) }
        return b
    }

    func decodeString() throws -> String {
        guard case .string(let s) = value else { throw mismatch(String.self) }
        return s
    }

    func decodeDouble() throws -> Double {
        switch value {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: throw mismatch(Double.self)
        }
    }

    /// An integer type from an integral number that fits it exactly (`1e3` is 1000, `1.5` and
    /// `300` for a `UInt8` are errors).
    func decodeInteger<I: FixedWidthInteger>(_ type: I.Type) throws -> I {
        let exact: I?
        switch value {
        case .int(let i): exact = I(exactly: i)
        case .double(let d): exact = I(exactly: d)
        default: throw mismatch(type)
        }
        guard let exact else {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: "Parsed JSON number does not fit in \(type)."))
        }
        return exact
    }
}

/// An object's members, by key.
struct JSONKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let decoder: JSONTreeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var allKeys: [Key] { members.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func child(_ key: Key) throws -> JSONTreeDecoder {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return decoder.child(value, at: key)
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(codingPath: codingPath, debugDescription: "No value associated with key \(key.stringValue)."))
        }
        return value == .null
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try child(key).decodeBool() }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try child(key).decodeString() }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try child(key).decodeDouble() }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { Float(try child(key).decodeDouble()) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try child(key).decodeInteger(type) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try child(key).decodeInteger(type) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try child(key).decodeInteger(type) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try child(key).decodeInteger(type) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try child(key).decodeInteger(type) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try child(key).decodeInteger(type) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try child(key).decodeInteger(type) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try child(key).decodeInteger(type) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try child(key).decodeInteger(type) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try child(key).decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try child(key).decodeValue(type) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try child(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try child(key).unkeyedContainer() }
    func superDecoder() throws -> any Decoder { try child(Key(stringValue: "super")!) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try child(key) }
}

/// An array's elements, in order.
struct JSONUnkeyedContainer: UnkeyedDecodingContainer {
    let items: [JSONValue]
    let decoder: JSONTreeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }
    private(set) var currentIndex = 0

    init(items: [JSONValue], decoder: JSONTreeDecoder) {
        self.items = items
        self.decoder = decoder
    }

    /// The next element's decoder; advances past it.
    private mutating func next(_ type: Any.Type) throws -> JSONTreeDecoder {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(codingPath: codingPath + [IndexKey(currentIndex)], debugDescription: "Unkeyed container is at end."))
        }
        defer { currentIndex += 1 }
        return decoder.child(items[currentIndex], at: IndexKey(currentIndex))
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { throw DecodingError.valueNotFound(Any?.self, DecodingError.Context(codingPath: codingPath, debugDescription: "Unkeyed container is at end.")) }
        guard items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next(type).decodeBool() }
    mutating func decode(_ type: String.Type) throws -> String { try next(type).decodeString() }
    mutating func decode(_ type: Double.Type) throws -> Double { try next(type).decodeDouble() }
    mutating func decode(_ type: Float.Type) throws -> Float { Float(try next(type).decodeDouble()) }
    mutating func decode(_ type: Int.Type) throws -> Int { try next(type).decodeInteger(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next(type).decodeInteger(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next(type).decodeInteger(type) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next(type).decodeValue(type) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next([String: Any].self).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { try next([Any].self).unkeyedContainer() }
    mutating func superDecoder() throws -> any Decoder { try next(Any.self) }
}

/// One value.
struct JSONSingleValueContainer: SingleValueDecodingContainer {
    let decoder: JSONTreeDecoder
    var codingPath: [any CodingKey] { decoder.codingPath }

    func decodeNil() -> Bool { decoder.value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.decodeBool() }
    func decode(_ type: String.Type) throws -> String { try decoder.decodeString() }
    func decode(_ type: Double.Type) throws -> Double { try decoder.decodeDouble() }
    func decode(_ type: Float.Type) throws -> Float { Float(try decoder.decodeDouble()) }
    func decode(_ type: Int.Type) throws -> Int { try decoder.decodeInteger(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try decoder.decodeInteger(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try decoder.decodeInteger(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try decoder.decodeInteger(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try decoder.decodeInteger(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try decoder.decodeInteger(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try decoder.decodeInteger(type) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decodeValue(type) }
}

/// An array index as a coding key (`models[3]` in paths).
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { self.intValue = intValue }
}

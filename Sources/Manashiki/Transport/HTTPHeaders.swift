import Foundation

/// An ordered list of HTTP header fields with case-insensitive lookup.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    /// One header field.
    public struct Field: Sendable, Hashable {
        /// The field name as given.
        public var name: String
        /// The field value.
        public var value: String
        /// Creates a field.
        public init(name: String, value: String) { self.name = name; self.value = value }
    }

    /// The fields in order.
    public private(set) var fields: [Field]

    /// Creates headers from fields.
    public init(_ fields: [Field] = []) { self.fields = fields }

    /// Creates headers from a literal.
    public init(dictionaryLiteral elements: (String, String)...) {
        fields = elements.map { Field(name: $0.0, value: $0.1) }
    }

    /// The first value of `name` (case-insensitive); setting replaces every field of that name,
    /// and setting nil removes them.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }
        set {
            fields.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            if let newValue { fields.append(Field(name: name, value: newValue)) }
        }
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    /// Appends a field, keeping existing ones of the same name.
    public mutating func add(name: String, value: String) { fields.append(Field(name: name, value: value)) }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Names only, so credentials cannot leak through logging.
    public var description: String { "[" + fields.map(\.name).joined(separator: ", ") + "]" }
}

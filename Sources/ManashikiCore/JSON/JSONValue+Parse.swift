import Foundation

extension JSONValue {
    /// Parses UTF-8 JSON strictly (RFC 8259): trailing commas, duplicate keys, comments,
    /// leading zeros, control characters in strings, lone surrogates and trailing garbage are
    /// refused with the JSON path and position of the problem. Duplicate keys are refused
    /// because readers disagree on them (Foundation keeps the first, jq and Python the last).
    ///
    /// - Parameter maxDepth: the deepest nesting accepted.
    /// - Throws: `JSONSyntaxError`.
    public static func parse(_ data: Data, maxDepth: Int = 256) throws(JSONSyntaxError) -> JSONValue {
        var parser = StrictJSONParser(bytes: Array(data), maxDepth: maxDepth)
        return try parser.document()
    }
}

/// The recursive-descent parser behind `JSONValue.parse(_:)`.
struct StrictJSONParser {
    let bytes: [UInt8]
    let maxDepth: Int
    var index = 0
    /// Path components of the value being read: a key or an index.
    var path: [String] = []

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }   // a UTF-8 byte order mark
    }

    mutating func document() throws(JSONSyntaxError) -> JSONValue {
        skipSpace()
        guard index < bytes.count else { throw fail("the document is empty") }
        let value = try self.value(depth: 0)
        skipSpace()
        guard index == bytes.count else { throw fail("unexpected \(describe(index)) after the end of the document") }
        return value
    }

    // MARK: Values

    mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth < maxDepth else { throw fail("nested more than \(maxDepth) levels deep") }
        guard index < bytes.count else { throw fail("the document ends where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth)
        case UInt8(ascii: "["): return try array(depth: depth)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        case UInt8(ascii: "/"): throw fail("comments are not allowed in JSON")
        default: throw fail("unexpected \(describe(index)) where a value was expected")
        }
    }

    mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var members: [String: JSONValue] = [:]
        var lines: [String: Int] = [:]
        skipSpace()
        if peek(UInt8(ascii: "}")) { index += 1; return .object(members) }
        while true {
            skipSpace()
            guard peek(UInt8(ascii: "\"")) else {
                if peek(UInt8(ascii: "}")) { throw fail("trailing comma before \"}\"") }
                throw fail("unexpected \(describe(index)) where a key (a string in double quotes) was expected")
            }
            let keyLine = position(index).line
            let key = try string()
            if let first = lines[key] {
                throw fail("duplicate key \"\(key)\" (the first is at line \(first)); keep one", at: index)
            }
            skipSpace()
            guard peek(UInt8(ascii: ":")) else { throw fail("expected \":\" after the key \"\(key)\"") }
            index += 1
            skipSpace()
            path.append(key)
            let value = try self.value(depth: depth + 1)
            path.removeLast()
            members[key] = value
            lines[key] = keyLine
            skipSpace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            if peek(UInt8(ascii: "}")) { index += 1; return .object(members) }
            throw fail(index < bytes.count ? "expected \",\" or \"}\" after the value of \"\(key)\", not \(describe(index))" : "the document ends inside an object (missing \"}\")")
        }
    }

    mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        index += 1
        var items: [JSONValue] = []
        skipSpace()
        if peek(UInt8(ascii: "]")) { index += 1; return .array(items) }
        while true {
            skipSpace()
            if peek(UInt8(ascii: "]")) { throw fail("trailing comma before \"]\"") }
            path.append("[\(items.count)]")
            items.append(try value(depth: depth + 1))
            path.removeLast()
            skipSpace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            if peek(UInt8(ascii: "]")) { index += 1; return .array(items) }
            throw fail(index < bytes.count ? "expected \",\" or \"]\" after an array element, not \(describe(index))" : "the document ends inside an array (missing \"]\")")
        }
    }

    mutating func literal(_ word: String) throws(JSONSyntaxError) {
        let expected = Array(word.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw fail("unexpected \(describe(index)) where a value was expected")
        }
        index += expected.count
    }

    mutating func number() throws(JSONSyntaxError) -> JSONValue {
        let start = index
        func digits() -> Int {
            let from = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        if peek(UInt8(ascii: "-")) { index += 1 }
        let intStart = index
        guard digits() > 0 else { throw fail("a number needs digits", at: start) }
        if bytes[intStart] == UInt8(ascii: "0") && index - intStart > 1 { throw fail("numbers must not have leading zeros", at: start) }
        var integral = true
        if peek(UInt8(ascii: ".")) {
            index += 1
            integral = false
            guard digits() > 0 else { throw fail("a digit must follow the decimal point", at: start) }
        }
        if peek(UInt8(ascii: "e")) || peek(UInt8(ascii: "E")) {
            index += 1
            integral = false
            if peek(UInt8(ascii: "+")) || peek(UInt8(ascii: "-")) { index += 1 }
            guard digits() > 0 else { throw fail("an exponent needs digits", at: start) }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if integral, let i = Int(text) { return .int(i) }
        guard let d = Double(text), d.isFinite else { throw fail("the number \(text) is too large", at: start) }
        return .double(d)
    }

    mutating func string() throws(JSONSyntaxError) -> String {
        let start = index
        index += 1
        var out: [UInt8] = []
        while index < bytes.count {
            let b = bytes[index]
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                // Not `String(validating:as:)`: it needs macOS 15 / iOS 18 (below the deployment
                // targets it does not compile on Apple platforms). `transcode` validates the
                // same way (overlong forms, surrogates and truncated sequences are errors) and
                // exists on every platform.
                let invalid = transcode(out.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true) { _ in }
                guard !invalid else { throw fail("a string is not valid UTF-8", at: start) }
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard peek(UInt8(ascii: "\\")), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                            throw fail("a lone UTF-16 surrogate in a \\u escape", at: index - 6)
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw fail("a lone UTF-16 surrogate in a \\u escape", at: index - 6) }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw fail("a lone UTF-16 surrogate in a \\u escape", at: index - 6)
                    }
                    out.append(contentsOf: Array(String(Character(Unicode.Scalar(scalar)!)).utf8))
                default: throw fail("\\\(Character(Unicode.Scalar(e))) is not a JSON escape", at: index - 2)
                }
            case 0..<0x20:
                throw fail("a control character (U+\(String(format: "%04X", b))) inside a string; escape it", at: index)
            default:
                out.append(b)
                index += 1
            }
        }
        throw fail("the document ends inside a string (missing closing \")", at: start)
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - index >= 4, let v = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else {
            throw fail("\\u must be followed by four hex digits", at: index - 2)
        }
        index += 4
        return v
    }

    // MARK: Helpers

    mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    func peek(_ byte: UInt8) -> Bool { index < bytes.count && bytes[index] == byte }

    func describe(_ at: Int) -> String {
        guard at < bytes.count else { return "end of the document" }
        let b = bytes[at]
        return b >= 0x20 && b < 0x7F ? "\"\(Character(Unicode.Scalar(b)))\"" : "byte 0x\(String(format: "%02X", b))"
    }

    func position(_ at: Int) -> (line: Int, column: Int) {
        var line = 1, column = 1
        for b in bytes[..<min(at, bytes.count)] { if b == 0x0A { line += 1; column = 1 } else { column += 1 } }
        return (line, column)
    }

    func fail(_ message: String, at: Int? = nil) -> JSONSyntaxError {
        let p = position(at ?? index)
        var text = ""
        for component in path { text += component.hasPrefix("[") ? component : (text.isEmpty ? component : ".\(component)") }
        return JSONSyntaxError(path: text, message: message, line: p.line, column: p.column)
    }
}

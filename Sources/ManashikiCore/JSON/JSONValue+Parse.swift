import Foundation

extension JSONValue {
    /// Parses UTF-8 JSON strictly (RFC 8259): trailing commas, duplicate keys, comments,
    /// leading zeros, control characters in strings, lone surrogates and trailing garbage are
    /// refused with the JSON path and position of the problem. Duplicate keys are refused
    /// because readers disagree on them (Foundation keeps the first, jq and Python the last):
    /// every reader of this package refuses them (docs/reliability.md, "Duplicate keys").
    ///
    /// Linear in the input's size; refuses nesting deeper than `limits.maxDepth` and a tree
    /// larger than `limits` allow for the input (`JSONLimits`).
    /// - Throws: `JSONSyntaxError`.
    public static func parse(_ data: Data, limits: JSONLimits = .default) throws(JSONSyntaxError) -> JSONValue {
        // Over the input's own bytes: no copy of the document.
        let result = data.withUnsafeBytes { raw -> Result<JSONValue, JSONSyntaxError> in
            var parser = StrictJSONParser(bytes: raw.bindMemory(to: UInt8.self), limits: limits)
            do throws(JSONSyntaxError) { return .success(try parser.document()) } catch { return .failure(error) }
        }
        return try result.get()
    }
}

/// The recursive-descent parser behind `JSONValue.parse(_:)`.
struct StrictJSONParser {
    /// One component of the path of the value being read.
    enum PathComponent {
        case key(String)
        case index(Int)
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let limits: JSONLimits
    /// What the tree may take, and what it takes so far (`JSONLimits`).
    let treeBudget: Int
    var treeBytes = 0
    var index = 0
    /// Path components of the value being read.
    var path: [PathComponent] = []

    init(bytes: UnsafeBufferPointer<UInt8>, limits: JSONLimits) {
        self.bytes = bytes
        self.limits = limits
        treeBudget = limits.treeBudget(forInputOf: bytes.count)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }   // a UTF-8 byte order mark
    }

    /// Counts `bytes` of heap the tree now holds; refuses the document past the budget.
    mutating func charge(_ bytes: Int) throws(JSONSyntaxError) {
        treeBytes += bytes
        guard treeBytes <= treeBudget else {
            throw fail("the document would take more than \(limits.treeBytesPerInputByte) times its size in memory (\(self.bytes.count) bytes of JSON); it is not one a server or this package writes")
        }
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
        guard depth < limits.maxDepth else { throw fail("nested more than \(limits.maxDepth) levels deep") }
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
        let start = index
        index += 1
        var members: [String: JSONValue] = [:]
        skipSpace()
        if peek(UInt8(ascii: "}")) { index += 1; return .object(members) }
        while true {
            skipSpace()
            guard peek(UInt8(ascii: "\"")) else {
                if peek(UInt8(ascii: "}")) { throw fail("trailing comma before \"}\"") }
                throw fail("unexpected \(describe(index)) where a key (a string in double quotes) was expected")
            }
            let key = try string()
            if members[key] != nil {
                throw fail("duplicate key \"\(Self.printable(key))\" (the first is at line \(firstLine(of: key, inObjectAt: start))); keep one", at: index)
            }
            skipSpace()
            guard peek(UInt8(ascii: ":")) else { throw fail("expected \":\" after the key \"\(Self.printable(key))\"") }
            index += 1
            skipSpace()
            path.append(.key(key))
            let value = try self.value(depth: depth + 1)
            path.removeLast()
            if members.count == members.capacity { // grown here, charged first: the budget holds at every step
                let grown = max(4, members.capacity * 2)
                try charge(Self.objectBytes(grown) - Self.objectBytes(members.capacity))
                members.reserveCapacity(grown)
            }
            members[key] = value
            skipSpace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            if peek(UInt8(ascii: "}")) { index += 1; return .object(members) }
            throw fail(index < bytes.count ? "expected \",\" or \"}\" after the value of \"\(Self.printable(key))\", not \(describe(index))" : "the document ends inside an object (missing \"}\")")
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
            path.append(.index(items.count))
            let item = try value(depth: depth + 1)
            path.removeLast()
            if items.count == items.capacity { // grown here, charged first
                let grown = max(4, items.capacity * 2)
                try charge(Self.arrayBytes(grown) - Self.arrayBytes(items.capacity))
                items.reserveCapacity(grown)
            }
            items.append(item)
            skipSpace()
            if peek(UInt8(ascii: ",")) { index += 1; continue }
            if peek(UInt8(ascii: "]")) { index += 1; return .array(items) }
            throw fail(index < bytes.count ? "expected \",\" or \"]\" after an array element, not \(describe(index))" : "the document ends inside an array (missing \"]\")")
        }
    }

    /// Heap bytes of an array's storage of `capacity` elements (a header, then the slots).
    static func arrayBytes(_ capacity: Int) -> Int { capacity == 0 ? 0 : 32 + capacity * MemoryLayout<JSONValue>.stride }

    /// Heap bytes of a dictionary's storage that holds `capacity` members (a header, then a key
    /// slot, a value slot and a bit for each bucket; a dictionary has 4/3 as many buckets as its
    /// capacity).
    static func objectBytes(_ capacity: Int) -> Int {
        capacity == 0 ? 0 : 64 + (capacity * 4 / 3 + 1) * (MemoryLayout<String>.stride + MemoryLayout<JSONValue>.stride + 1)
    }

    /// The line of the first member named `key` of the object starting at `start` (only for the
    /// message of a duplicate: the members are read again, so parsing stays linear).
    func firstLine(of key: String, inObjectAt start: Int) -> Int {
        var reader = StrictJSONParser(bytes: bytes, limits: limits)
        reader.index = start + 1
        while true {
            reader.skipSpace()
            let keyAt = reader.index
            guard let name = try? reader.string() else { return position(keyAt).line }
            if name == key { return position(keyAt).line }
            reader.skipSpace()
            reader.index += 1 // ":"
            reader.skipSpace()
            guard (try? reader.value(depth: 0)) != nil else { return position(keyAt).line }
            reader.skipSpace()
            reader.index += 1 // ","
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
                if out.count > 15 { try charge(32 + out.count) } // longer than a small string's inline storage
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
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// A key as messages show it: control, invisible-format and C1 characters escaped
    /// (`\u{1B}`), at most 100 characters, so a hostile document cannot forge or hide text in
    /// a terminal or a log.
    static func printable(_ key: String) -> String {
        var out = ""
        for scalar in key.unicodeScalars.prefix(100) {
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.properties.generalCategory == .format {
                out += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return key.unicodeScalars.count > 100 ? out + "…" : out
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
        for component in path {
            switch component {
            case .index(let i): text += "[\(i)]"
            case .key(let key): text += text.isEmpty ? Self.printable(key) : ".\(Self.printable(key))"
            }
        }
        return JSONSyntaxError(path: text, message: message, line: p.line, column: p.column)
    }
}

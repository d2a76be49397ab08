import Foundation
import Testing
import ManashikiCore

/// `JSONValue.parse(_:)`: strict RFC 8259, with the path and position of every refusal.
@Suite("Strict JSON")
struct StrictJSONTests {
    static let refused: [(json: String, path: String, says: String)] = [
        (#"{"a": 1,}"#, "", "trailing comma before \"}\""),
        (#"[1, 2,]"#, "", "trailing comma before \"]\""),
        (#"{"a": {"b": 1, "b": 2}}"#, "a", "duplicate key \"b\""),
        (#"{"a": [1, {"c": 01}]}"#, "a[1].c", "leading zeros"),
        (#"{"a": "x" // note"#, "", "expected \",\" or \"}\""),
        (#"// c"#, "", "comments are not allowed"),
        ("{\"a\": \"tab\there\"}", "a", "control character"),
        (#"{"a": "\ud800"}"#, "a", "lone UTF-16 surrogate"),
        (#"{"a": 1} x"#, "", "after the end of the document"),
        (#"{'a': 1}"#, "", "where a key (a string in double quotes) was expected"),
        ("", "", "the document is empty"),
    ]

    @Test("invalid documents are refused with the JSON path and what is wrong", arguments: 0..<11)
    func refusals(index: Int) {
        let (json, path, says) = Self.refused[index]
        do {
            _ = try JSONValue.parse(Data(json.utf8))
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.path == path, "\(json): \(error)")
            #expect(error.message.contains(says), "\(json): \(error)")
        }
    }

    @Test("valid JSON parses to the same values as JSONSerialization would give")
    func values() throws {
        let v = try JSONValue.parse(Data(#" {"s": "a\"\u00e9\ud83d\ude00", "i": -12, "d": 1.5e2, "b": [true, false, null], "o": {}} "#.utf8))
        #expect(v == .object(["s": .string("a\"é😀"), "i": .int(-12), "d": .double(150), "b": .array([.bool(true), .bool(false), .null]), "o": .object([:])]))
        #expect(try JSONValue.parse(Data("\u{FEFF}[]".utf8)) == .array([]))
    }
}

/// The UTF-8 check of strings without `String(validating:as:)` (macOS 15 / iOS 18, above the
/// deployment targets): it must refuse and accept exactly what that initializer does, which
/// Linux (no availability there) can still call to compare.
@Suite("Strict JSON: UTF-8 in strings")
struct StrictJSONUTF8Tests {
    static let samples: [[UInt8]] = [
        Array("plain".utf8), Array("é😀".utf8), [],
        [0xC0, 0x80],              // overlong NUL
        [0xE0, 0x80, 0xAF],        // overlong "/"
        [0xED, 0xA0, 0x80],        // a UTF-16 surrogate encoded in UTF-8
        [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
        [0xFF], [0x80], [0xE2, 0x82], [0x61, 0xF0, 0x9F, 0x98],  // invalid, stray, truncated
        [0xEF, 0xBF, 0xBD],        // U+FFFD itself is valid
    ]

    @Test("a string's bytes are accepted exactly when String(validating:as:) accepts them", arguments: 0..<12)
    func sameAsStandardLibrary(index: Int) {
        // The reference exists on Apple platforms from macOS 15 / iOS 18 only.
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
        let bytes = Self.samples[index]
        let document = Data([UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")])
        let expected = String(validating: bytes, as: UTF8.self)
        do {
            let value = try JSONValue.parse(document)
            #expect(expected != nil && value == .string(expected!), "\(bytes)")
        } catch {
            #expect(expected == nil, "\(bytes): \(error)")
            #expect(error.message.contains("not valid UTF-8"), "\(bytes): \(error)")
        }
    }
}

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

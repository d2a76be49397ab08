import Foundation
import Testing
@testable import ManashikiCore

/// `JSONLimits`: the strict parser builds no tree larger than a fixed multiple of its input,
/// nests no deeper than its limit, and stays linear on documents built to make it quadratic.
@Suite("Strict JSON: limits")
struct JSONLimitsTests {
    /// `[{},{},…]`: 3 bytes a value, the shape that made Foundation's decoder take 20 times its
    /// input (10 million in 30 MB: 623 MB).
    static func emptyObjects(_ count: Int) -> Data {
        var d = Data("[".utf8)
        d.reserveCapacity(count * 3 + 2)
        for i in 0..<count { d.append(contentsOf: i == 0 ? Array("{}".utf8) : Array(",{}".utf8)) }
        d.append(UInt8(ascii: "]"))
        return d
    }

    @Test("a large array of tiny values is refused by the tree budget, naming the multiple; a small one parses")
    func treeBudget() throws {
        let limits = JSONLimits(maxDepth: 128, treeBytesPerInputByte: 4, minimumTreeBytes: 4096)
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(Self.emptyObjects(100_000), limits: limits) }
        #expect(error?.message.contains("more than 4 times its size in memory") == true, "\(String(describing: error))")
        _ = try JSONValue.parse(Self.emptyObjects(10), limits: limits) // within the minimum
    }

    @Test("the default limits refuse 10 million {} (30 MB) long before the end, and accept a realistic catalog")
    func defaults() throws {
        // (Checked without #expect(throws:): were it accepted, describing 10 million values would take minutes.)
        var message: String?
        do { _ = try JSONValue.parse(Self.emptyObjects(10_000_000)) } catch { message = error.message }
        #expect(message?.contains("8 times its size") == true, "\(String(describing: message))")
        // 20,000 catalog entries as a registry sends them: well within.
        let entry = #"{"modelId": "model-%05d", "version": "1.2.3", "size": 123456789, "sha256": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}"#
        let catalog = "{\"models\": [" + (0..<20_000).map { String(format: entry, $0) }.joined(separator: ", ") + "]}"
        let value = try JSONValue.parse(Data(catalog.utf8))
        guard case .object(let top) = value, case .array(let models)? = top["models"] else { Issue.record("not parsed"); return }
        #expect(models.count == 20_000)
    }

    @Test("nesting past maxDepth is refused (100,000 brackets: no stack overflow)")
    func depth() {
        let deep = Data(String(repeating: "[", count: 100_000).utf8)
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(deep) }
        #expect(error?.message.contains("nested more than 128 levels deep") == true)
    }

    @Test("an object of 200,000 keys parses in linear time (a key's line was once found by rescanning from the start)")
    func manyKeys() throws {
        let object = "{" + (0..<200_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",\n") + "}"
        let value = try JSONValue.parse(Data(object.utf8))
        guard case .object(let members) = value else { Issue.record("not an object"); return }
        #expect(members.count == 200_000)
        // A duplicate at the end still names the first one's line.
        let duplicated = "{" + (0..<50_000).map { "\"k\($0)\":\($0)" }.joined(separator: ",\n") + ",\n\"k7\":0}"
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(Data(duplicated.utf8)) }
        #expect(error?.message == #"duplicate key "k7" (the first is at line 8); keep one"#)
    }
}

/// What a hostile key can do to a message: nothing.
@Suite("Strict JSON: messages")
struct StrictJSONMessageTests {
    @Test("a key with a terminal escape or an invisible character is shown escaped, in the message and the path")
    func escapedKeys() {
        let json = #"{"x\u001b[2J\u202e": {"k": 1, "k": 2}, "x\u001b[2J\u202e": 3}"#
        let error = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(Data(json.utf8)) }
        #expect(error?.path == #"x\u{1B}[2J\u{202E}"#, "\(String(describing: error))")
        let duplicate = #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(Data(#"{"a\u0007": 1, "a\u0007": 2}"#.utf8)) }
        #expect(duplicate?.message == #"duplicate key "a\u{7}" (the first is at line 1); keep one"#)
        #expect(duplicate?.description.unicodeScalars.contains { $0.value < 0x20 } == false)
    }
}

/// `StrictJSONDecoder`: `Decodable` from the strict tree, as `JSONDecoder` decodes by default.
@Suite("Strict JSON: decoding")
struct StrictJSONDecoderTests {
    struct Sample: Decodable, Equatable {
        var name: String
        var size: Int64
        var ratio: Double
        var flags: [Bool]
        var nested: [String: Int]
        var optional: String?
        var blob: Data
        var link: URL
        var free: JSONValue
    }

    @Test("every kind of field decodes; integral numbers decode as integers (1e3), base64 as Data, strings as URLs")
    func decodes() throws {
        let json = #"{"name": "a", "size": 1e3, "ratio": 2, "flags": [true, false], "nested": {"x": 1}, "optional": null, "blob": "AAE=", "link": "https://h/p", "free": {"k": [1, "v"]}}"#
        let sample = try StrictJSONDecoder().decode(Sample.self, from: Data(json.utf8))
        #expect(sample == Sample(name: "a", size: 1000, ratio: 2, flags: [true, false], nested: ["x": 1], optional: nil,
                                 blob: Data([0, 1]), link: URL(string: "https://h/p")!, free: ["k": [1, "v"]]))
    }

    @Test("a duplicate key is refused, where Foundation's decoder would take one of them", arguments: [
        #"{"name": "a", "name": "b"}"#, #"{"outer": {"x": 1, "x": 2}}"#,
    ])
    func duplicates(json: String) {
        struct Any1: Decodable { var name: String? }
        let error = #expect(throws: DecodingError.self) { try StrictJSONDecoder().decode(Any1.self, from: Data(json.utf8)) }
        guard case .dataCorrupted(let context)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect((context.underlyingError as? JSONSyntaxError)?.message.contains("duplicate key") == true)
    }

    @Test("errors carry the coding path DecodingErrorText words: a missing key, a wrong type, a null, a fraction for an integer")
    func errors() {
        struct Entry: Decodable { var id: String; var size: Int64 }
        struct List: Decodable { var models: [Entry] }
        func decode(_ json: String) -> DecodingError? {
            #expect(throws: DecodingError.self) { try StrictJSONDecoder().decode(List.self, from: Data(json.utf8)) }
        }
        guard case .keyNotFound(let key, let ctx)? = decode(#"{"models": [{"id": "a", "size": 1}, {"id": "b"}]}"#) else { Issue.record("keyNotFound"); return }
        #expect(key.stringValue == "size" && ctx.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue } == ["models", "1"])
        guard case .typeMismatch? = decode(#"{"models": [{"id": 1, "size": 1}]}"#) else { Issue.record("typeMismatch"); return }
        guard case .valueNotFound? = decode(#"{"models": [{"id": null, "size": 1}]}"#) else { Issue.record("valueNotFound"); return }
        guard case .dataCorrupted? = decode(#"{"models": [{"id": "a", "size": 1.5}]}"#) else { Issue.record("dataCorrupted"); return }
    }

    @Test("ISO 8601 dates, with and without fractional seconds, when asked for")
    func dates() throws {
        struct Stamp: Decodable { var at: Date }
        let decoder = StrictJSONDecoder(dates: .iso8601)
        #expect(try decoder.decode(Stamp.self, from: Data(#"{"at": "2026-12-07T10:00:00Z"}"#.utf8)).at.timeIntervalSince1970 == 1796637600)
        #expect(try decoder.decode(Stamp.self, from: Data(#"{"at": "2026-12-07T10:00:00.5Z"}"#.utf8)).at.timeIntervalSince1970 == 1796637600.5)
    }
}

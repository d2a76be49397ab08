#if os(Linux) || os(macOS) // python3 as the reference (ManashikiProcess: Linux and macOS)
import Foundation
import ManashikiCore
import ManashikiTestSupport
import Testing

/// Canonical JSON byte for byte as securesystemslib's `encode_canonical` writes it (the bytes
/// TUF signs), for documents that stress key order, escaping and Unicode.
@Suite("Canonical JSON", .requires(.pythonTUF))
struct CanonicalJSONTests {
    static let documents = [
        #"{"b":1,"a":[true,false,null],"c":{"z":"","y":-3}}"#,
        #"{"quote\"d":"back\\slash","ctl":"\u0001\n\t","uni":"é日本\ud83d\ude00","e\u0301":"NFD"}"#,
        #"{"Z":1,"a":2,"_type":"root","ä":3,"~":4,"\u007f":5}"#,
        #"[1,-9007199254740993,[],{},"\/"]"#,
    ]

    @Test("equals securesystemslib's encode_canonical", arguments: documents)
    func matchesSecuresystemslib(json: String) throws {
        let ours = try JSONValue.parse(Data(json.utf8)).canonicalBytes()
        let script = "import sys, json\nfrom securesystemslib.formats import encode_canonical\n"
            + "sys.stdout.buffer.write(encode_canonical(json.loads(sys.argv[1])).encode('utf-8'))"
        let python = RunningChild.run(try Peer.python3.require(), ["-c", script, json], environment: Peer.environment, path: Peer.searchPath)
        try #require(python.status == 0, "python3 with securesystemslib: \(python.stderr)")
        #expect(String(decoding: ours, as: UTF8.self) == python.stdout)
    }

    @Test("two keys that differ only in Unicode normalization are refused (Swift strings compare them equal), never merged")
    func canonicallyEquivalentKeys() {
        #expect(throws: JSONSyntaxError.self) { try JSONValue.parse(Data(#"{"e\u0301":1,"é":2}"#.utf8)) }
    }

    @Test("a non-integral number is refused with its path")
    func refusesFloats() throws {
        let value = try JSONValue.parse(Data(#"{"signed":{"meta":{"x":1.5}}}"#.utf8))
        #expect(throws: CanonicalJSONError(path: "signed.meta.x")) { try value.canonicalBytes() }
    }
}
#endif

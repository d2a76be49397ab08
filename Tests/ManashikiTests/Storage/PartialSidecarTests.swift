import Foundation
import Testing
@testable import Manashiki

@Suite("PartialSidecar formats")
struct PartialSidecarFormatTests {
    static let sha = String(repeating: "ab", count: 32)

    @Test("format 2 round-trips its parts; format 1 is still read (in order, no parts)")
    func versions() throws {
        let v2 = PartialSidecar(modelId: "m", sha256: Self.sha, size: 100, version: "1", bytesKnownGood: 10, parts: [20..<30, 50..<60])
        let decoded = try PartialSidecar.decode(v2.encoded()).get()
        #expect(decoded.formatVersion == 2 && decoded.partRanges == [20..<30, 50..<60] && decoded.bytesKnownGood == 10)
        let v1 = Data(#"{"formatVersion": 1, "modelId": "m", "sha256": "\#(Self.sha)", "size": 100, "bytesKnownGood": 40}"#.utf8)
        let old = try PartialSidecar.decode(v1).get()
        #expect(old.parts == nil && old.bytesKnownGood == 40)
    }

    @Test("a newer format, or parts that overlap, run past the size or precede the prefix, are refused", arguments: [
        #"{"formatVersion": 3, "modelId": "m", "sha256": "S", "size": 100, "bytesKnownGood": 0}"#,
        #"{"formatVersion": 2, "modelId": "m", "sha256": "S", "size": 100, "bytesKnownGood": 0, "parts": [[10, 30], [20, 40]]}"#,
        #"{"formatVersion": 2, "modelId": "m", "sha256": "S", "size": 100, "bytesKnownGood": 0, "parts": [[90, 101]]}"#,
        #"{"formatVersion": 2, "modelId": "m", "sha256": "S", "size": 100, "bytesKnownGood": 50, "parts": [[10, 20]]}"#,
        #"{"formatVersion": 2, "modelId": "m", "sha256": "S", "size": 100, "bytesKnownGood": 0, "parts": [[10]]}"#,
    ])
    func refused(_ text: String) {
        let data = Data(text.replacingOccurrences(of: "\"S\"", with: "\"\(Self.sha)\"").utf8)
        guard case .failure = PartialSidecar.decode(data) else {
            Issue.record("accepted: \(text)")
            return
        }
    }
}

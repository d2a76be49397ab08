import Foundation
import Testing
@testable import Manashiki

@Suite("Model ids (CONTRACT §2)")
struct ModelIDTests {
    @Test("valid ids", arguments: [
        "a", "0", "whisper-medical-ja-fp16", "doctor-abc123-lora-whisper-decoder-v3", "a.b_c-d", "v1.2",
        String(repeating: "a", count: 128),
    ])
    func valid(id: String) { #expect(ModelID.isValid(id)) }

    @Test("invalid ids, including traversal, separators and look-alikes", arguments: [
        "", ".", "..", "../x", "a/b", "/etc/x", "a\\b", "a\u{0}b", "A", "Whisper", "a..b", "-a", "a-", ".a", "a.",
        "_a", "a_", "a b", "a\nb", String(repeating: "a", count: 129),
        "a\u{FF0F}b", "a\u{202E}b", "a\u{200B}b", "\u{0430}bc", "é", "a%2fb", "a:b",
    ])
    func invalid(id: String) {
        #expect(!ModelID.isValid(id))
        #expect(throws: APIError.invalidModelId(id)) { try ModelID.validate(id) }
    }

    @Test("file names map back to ids only for valid ids")
    func fileNames() {
        #expect(ModelID.fileName(for: "tiny") == "tiny.bin")
        #expect(ModelID.modelId(fromFileName: "tiny.bin") == "tiny")
        #expect(ModelID.modelId(fromFileName: "Tiny.bin") == nil)
        #expect(ModelID.modelId(fromFileName: "tiny.txt") == nil)
        #expect(ModelID.modelId(fromFileName: ".bin") == nil)
        #expect(ModelID.modelId(fromFileName: "..bin") == nil)
    }

    @Test("an invalid id's error text escapes control and invisible characters")
    func escaping() {
        let text = APIError.invalidModelId("a\u{202E}b\nc").localizedDescription
        #expect(!text.contains("\u{202E}"))
        #expect(!text.contains("\n"))
        #expect(text.contains("\\u{202E}"))
    }
}

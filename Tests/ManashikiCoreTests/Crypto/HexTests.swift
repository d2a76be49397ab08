import Foundation
import ManashikiCore
import Testing

@Suite("Hex, HMAC-SHA256 and ArtifactDigest")
struct HexTests {
    @Test("lowercase hex of bytes")
    func encode() {
        #expect(Hex.encode([]) == "")
        #expect(Hex.encode([0x00, 0xff, 0x1a, 0x9c]) == "00ff1a9c")
        #expect(ArtifactDigest(bytes: [UInt8](repeating: 0xab, count: 32)).hex == String(repeating: "ab", count: 32))
        #expect(ArtifactDigest(bytes: [UInt8](repeating: 0x01, count: 32)).description == String(repeating: "01", count: 32))
    }

    @Test("random tokens are lowercase hex of the length asked for, and differ")
    func random() {
        let a = Hex.random(bytes: 32), b = Hex.random(bytes: 32)
        #expect(Hex.isSHA256(a) && Hex.isSHA256(b))
        #expect(a != b)
        #expect(Hex.random(bytes: 5).count == 10)
    }

    @Test("constant-time comparison is plain equality", arguments: [
        ("abc", "abc", true), ("abc", "abd", false), ("abc", "ab", false), ("", "", true),
    ])
    func constantTime(a: String, b: String, equal: Bool) {
        #expect(Hex.constantTimeEqual(a, b) == equal)
    }

    @Test("HMAC-SHA256: RFC 4231 test cases 1 and 2")
    func hmac() {
        #expect(HMACSHA256.hex(key: [UInt8](repeating: 0x0b, count: 20), message: "Hi There")
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(HMACSHA256.hex(key: Array("Jefe".utf8), message: "what do ya want for nothing?")
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}

import Foundation
import ManashikiCore
import ManashikiTestSupport
import Testing

@Suite("SHA-256")
struct SHA256HasherTests {
    @Test("NIST FIPS 180-2 test vectors", arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
    ])
    func vectors(input: String, hex: String) {
        #expect(SHA256Hasher.hash(Data(input.utf8)).hex == hex)
    }

    @Test("one million 'a' in uneven pieces")
    func millionA() {
        let h = SHA256Hasher()
        let piece = Data(repeating: UInt8(ascii: "a"), count: 999)
        var left = 1_000_000
        while left > 0 {
            let n = min(left, piece.count)
            h.update(piece.prefix(n))
            left -= n
        }
        #expect(h.finalize().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    #if os(Linux) || os(macOS) // child processes (ManashikiProcess) exist on Linux and macOS only
    @Test("agrees with sha256sum on a large random file", .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sha256sum")))
    func agreesWithSha256sum() throws {
        let scratch = ScratchDirectory("manashiki-sha256")
        let file = scratch.file("random.bin")
        var g = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: 24 << 20 | 12345)
        for i in stride(from: 0, to: bytes.count - 8, by: 8) {
            withUnsafeBytes(of: g.next() as UInt64) { raw in for j in 0..<8 { bytes[i + j] = raw[j] } }
        }
        try Data(bytes).write(to: file)
        let h = SHA256Hasher()
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = min(1 << 20, raw.count - offset)
                h.update(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + n]))
                offset += n
            }
        }
        let text = RunningChild.run(URL(fileURLWithPath: "/usr/bin/sha256sum"), [file.path]).stdout
        #expect(text.split(separator: " ").first.map(String.init) == h.finalize().hex)
    }
    #endif

    @Test("hex validation accepts only 64 lowercase hex characters")
    func hexValidation() {
        #expect(Hex.isSHA256(String(repeating: "a", count: 64)))
        #expect(!Hex.isSHA256(String(repeating: "A", count: 64)))
        #expect(!Hex.isSHA256(String(repeating: "a", count: 63)))
        #expect(!Hex.isSHA256(String(repeating: "g", count: 64)))
    }
}

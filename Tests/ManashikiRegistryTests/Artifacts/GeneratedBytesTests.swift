import Foundation
import ManashikiTestSupport
import Testing
@testable import ManashikiRegistry
import ManashikiCore

@Suite("Generated artifacts")
struct GeneratedBytesTests {
    @Test("seed 0 starts with SplitMix64's first output, little-endian")
    func knownValue() {
        let bytes = [UInt8](GeneratedBytes.data(size: 8, seed: 0))
        // SplitMix64 from state 0: first output 0xE220A8397B1DCDAF.
        #expect(bytes == [0xAF, 0xCD, 0x1D, 0x7B, 0x39, 0xA8, 0x20, 0xE2])
    }

    @Test("bytes are deterministic, prefix-stable, addressable at any 8-byte offset, and seed-dependent")
    func deterministic() {
        let a = GeneratedBytes.data(size: 100_003, seed: 42)
        #expect(a == GeneratedBytes.data(size: 100_003, seed: 42))
        #expect(GeneratedBytes.data(size: 1001, seed: 42) == a.prefix(1001))
        var tail = Data(count: 5003)
        tail.withUnsafeMutableBytes { GeneratedBytes.fill($0, offset: 95_000, seed: 42) }
        #expect(tail == a.subdata(in: 95_000..<100_003))
        #expect(GeneratedBytes.data(size: 64, seed: 43) != a.prefix(64))
    }

    @Test("a generated artifact on disk matches the in-memory bytes and its digest")
    func writtenFile() throws {
        let scratch = ScratchDirectory("gen")
        let url = scratch.file("gen.bin")
        let digest = try GeneratedBytes.write(size: 5 << 20 + 3, seed: 9, to: url)
        let data = try Data(contentsOf: url)
        #expect(data == GeneratedBytes.data(size: 5 << 20 + 3, seed: 9))
        #expect(digest == SHA256Hasher.hash(data).hex)
    }

    @Test("the SHA-256 and HMAC-SHA256 helpers match published test vectors")
    func cryptoVectors() {
        #expect(SHA256Hasher.hash(Data("abc".utf8)).hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // RFC 4231 test case 2.
        #expect(HMACSHA256.hex(key: Array("Jefe".utf8), message: "what do ya want for nothing?")
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}

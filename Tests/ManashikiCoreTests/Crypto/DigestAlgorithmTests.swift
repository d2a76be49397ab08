import ManashikiCore
import Testing

@Suite("One-shot digests")
struct DigestAlgorithmTests {
    @Test("FIPS 180-4 vectors of \"abc\"", arguments: [
        (DigestAlgorithm.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (.sha384, "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7"),
        (.sha512, "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f"),
    ])
    func abc(algorithm: DigestAlgorithm, hex: String) {
        #expect(algorithm.hex(Array("abc".utf8)) == hex)
    }

    @Test("the empty message")
    func empty() {
        #expect(DigestAlgorithm.sha256.hex([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("hex decoding takes even-length lowercase hex only")
    func hexDecode() {
        #expect(Hex.decode("00ff7a") == [0, 255, 122])
        #expect(Hex.decode("") == [])
        #expect(Hex.decode("0") == nil)
        #expect(Hex.decode("FF") == nil)
        #expect(Hex.decode("zz") == nil)
    }
}

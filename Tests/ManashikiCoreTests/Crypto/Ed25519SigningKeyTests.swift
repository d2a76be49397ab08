import Foundation
import ManashikiCore
import Testing

/// `Ed25519SigningKey`: RFC 8032's test vectors, and signatures `PublicKey` verifies.
@Suite("Ed25519 signing")
struct Ed25519SigningKeyTests {
    /// RFC 8032 §7.1, tests 1 and 2: seed, public key, message, signature (hex).
    static let vectors: [(seed: String, publicKey: String, message: String, signature: String)] = [
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ]

    @Test("RFC 8032's vectors: the public key and the signature are the RFC's", arguments: 0..<2)
    func rfcVectors(_ i: Int) throws {
        let v = Self.vectors[i]
        let seed = try #require(Hex.decode(v.seed)), message = try #require(Hex.decode(v.message))
        let key = try #require(Ed25519SigningKey(seed: seed))
        #expect(Hex.encode(key.publicKey) == v.publicKey)
        #expect(Hex.encode(key.sign(message)) == v.signature)
    }

    @Test("a generated key's signature verifies with PublicKey; another message or key does not; a seed must be 32 bytes")
    func generated() throws {
        let key = Ed25519SigningKey.generate(), other = Ed25519SigningKey.generate()
        #expect(key.seed != other.seed)
        let message = Array("signed metadata".utf8)
        let signature = key.sign(message)
        let verifier = try PublicKey(ed25519: key.publicKey)
        #expect(verifier.isValidSignature(signature, for: message))
        #expect(!verifier.isValidSignature(signature, for: message + [0]))
        #expect(!(try PublicKey(ed25519: other.publicKey)).isValidSignature(signature, for: message))
        #expect(Ed25519SigningKey(seed: [UInt8](repeating: 1, count: 31)) == nil)
    }
}

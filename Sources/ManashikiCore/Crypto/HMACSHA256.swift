/// HMAC-SHA256, for signing storage URLs and AWS Signature Version 4 (`SigV4Signer`).
package enum HMACSHA256 {
    /// The MAC of `message` under `key`, in hex.
    package static func hex(key: [UInt8], message: String) -> String {
        Hex.encode(SHA256Engine.hmac(key: key, message: Array(message.utf8)))
    }

    /// The 32 MAC bytes of `message` under `key` (Signature Version 4 chains them as keys).
    package static func mac(key: [UInt8], message: String) -> [UInt8] {
        SHA256Engine.hmac(key: key, message: Array(message.utf8))
    }
}

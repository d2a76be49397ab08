/// HMAC-SHA256, for signing storage URLs.
package enum HMACSHA256 {
    /// The MAC of `message` under `key`, in hex.
    package static func hex(key: [UInt8], message: String) -> String {
        Hex.encode(SHA256Engine.hmac(key: key, message: Array(message.utf8)))
    }
}

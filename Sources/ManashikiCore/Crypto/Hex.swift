/// Lowercase hex: encoding, the registry's SHA-256 form, random tokens and constant-time
/// comparison.
package enum Hex {
    /// Lowercase hex of `bytes`.
    package static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `s`, an even number of lowercase hex digits; nil for anything else
    /// (uppercase included, so one value has one spelling).
    package static func decode(_ s: String) -> [UInt8]? {
        let u = Array(s.utf8)
        guard u.count % 2 == 0 else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            default: nil
            }
        }
        var out = [UInt8]()
        out.reserveCapacity(u.count / 2)
        for i in stride(from: 0, to: u.count, by: 2) {
            guard let hi = nibble(u[i]), let lo = nibble(u[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
        }
        return out
    }

    /// Whether `s` is 64 lowercase hex characters, the form the registry uses for SHA-256.
    package static func isSHA256(_ s: String) -> Bool {
        let u = s.utf8
        return u.count == 64 && u.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// `count` random bytes in hex.
    package static func random(bytes count: Int) -> String {
        var g = SystemRandomNumberGenerator()
        return encode((0..<count).map { _ in UInt8.random(in: 0...255, using: &g) })
    }

    /// Compares two strings in time independent of where they differ.
    package static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var diff: UInt8 = 0
        for i in 0..<x.count { diff |= x[i] ^ y[i] }
        return diff == 0
    }
}

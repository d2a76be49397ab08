import Foundation
import ManashikiCore

/// Deterministic pseudo-random bytes from `(size, seed)`: identical on every run and machine,
/// cheap to produce, and addressable at any offset.
///
/// Byte `i` is byte `i % 8` (little-endian) of `splitmix64(seed &+ (i / 8 + 1) &* 0x9E3779B97F4A7C15)`,
/// the SplitMix64 finaliser applied to a Weyl sequence.
///
/// ```swift
/// let bytes = GeneratedBytes.data(size: 4096, seed: 7)
/// ```
public enum GeneratedBytes {
    private static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// The 8-byte block number `block` for `seed`.
    @inline(__always)
    static func block(_ block: UInt64, seed: UInt64) -> UInt64 {
        var z = seed &+ (block &+ 1) &* gamma
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Fills `buffer` with the bytes starting at `offset` (a multiple of 8).
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer, offset: Int, seed: UInt64) {
        precondition(offset % 8 == 0, "offset must be a multiple of 8")
        let whole = buffer.count / 8
        var index = UInt64(offset / 8)
        for i in 0..<whole {
            buffer.storeBytes(of: block(index, seed: seed).littleEndian, toByteOffset: i * 8, as: UInt64.self)
            index += 1
        }
        let rest = buffer.count - whole * 8
        if rest > 0 {
            var last = block(index, seed: seed).littleEndian
            withUnsafeBytes(of: &last) { tail in
                for j in 0..<rest { buffer[whole * 8 + j] = tail[j] }
            }
        }
    }

    /// The first `size` bytes for `seed`.
    public static func data(size: Int, seed: UInt64) -> Data {
        var data = Data(count: size)
        data.withUnsafeMutableBytes { fill($0, offset: 0, seed: seed) }
        return data
    }

    /// Writes the `size` bytes for `seed` to `url` and returns their SHA-256 in hex.
    @discardableResult
    public static func write(size: Int, seed: UInt64, to url: URL) throws -> String {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        let hasher = SHA256Hasher()
        let chunk = 4 << 20
        var buffer = Data(count: chunk)
        var offset = 0
        while offset < size {
            let n = min(chunk, size - offset)
            if n < chunk { buffer = Data(count: n) }
            buffer.withUnsafeMutableBytes { fill($0, offset: offset, seed: seed) }
            hasher.update(buffer)
            try handle.write(contentsOf: buffer)
            offset += n
        }
        return hasher.finalize().hex
    }
}

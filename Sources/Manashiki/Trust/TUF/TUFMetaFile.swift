import Foundation
import ManashikiCore

/// What timestamp says of snapshot, and snapshot of each targets file: its version, and
/// optionally its length and hashes.
struct TUFMetaFile: Sendable, Hashable {
    let version: Int
    let length: Int?
    let hashes: [String: String]?

    init(_ fields: TUFFields) throws(TUFError) {
        version = try fields.positive("version")
        length = try fields.optionalInt("length")
        if let length, length < 0 { throw fields.fail("\(fields.name("length")) is negative") }
        hashes = fields.members["hashes"] == nil ? nil : try fields.hashes("hashes")
    }

    /// Throws `mismatch` unless `data` has the length and every hash given.
    func verify(_ data: Data, role: String) throws(TUFError) {
        try TUFHashes.verify(Array(data), length: length, hashes: hashes, what: "\(role).json", role: role)
    }
}

/// A target: its length and hashes (and the custom object publishers put there).
public struct TUFTargetFile: Sendable, Hashable {
    /// The target path (`models/tiny/1.2.0.bin`).
    public let path: String
    /// Its length in bytes.
    public let length: Int64
    /// Hex digests by algorithm (`sha256`, `sha512`).
    public let hashes: [String: String]
    /// The `custom` object, if any.
    public let custom: JSONValue?

    init(path: String, fields: TUFFields) throws(TUFError) {
        self.path = path
        let length = try fields.int("length")
        guard length >= 0 else { throw fields.fail("\(fields.name("length")) is negative") }
        self.length = Int64(length)
        hashes = try fields.hashes("hashes")
        custom = fields.members["custom"]
    }

    /// The SHA-256 digest in lowercase hex, when the target has one.
    public var sha256: String? { hashes["sha256"] }

    /// Throws `mismatch` unless `bytes` have the target's length and every one of its hashes
    /// (a hash of an algorithm this client does not know refuses the target).
    public func verify(_ bytes: [UInt8]) throws(TUFError) {
        try TUFHashes.verify(bytes, length: Int(exactly: length), hashes: hashes, what: "the target", role: path)
    }
}

/// Length and hash checks of metadata and targets.
enum TUFHashes {
    static func verify(_ bytes: [UInt8], length: Int?, hashes: [String: String]?, what: String, role: String) throws(TUFError) {
        if let length, bytes.count != length {
            throw TUFError(role: role, reason: .mismatch("\(what) is \(bytes.count) bytes where \(length) are signed"))
        }
        for (name, expected) in (hashes ?? [:]).sorted(by: { $0.key < $1.key }) {
            guard let algorithm = DigestAlgorithm(rawValue: name) else {
                throw TUFError(role: role, reason: .mismatch("\(what)'s hash \"\(name)\" is of an algorithm this client cannot check"))
            }
            let found = algorithm.hex(bytes)
            guard found == expected else {
                throw TUFError(role: role, reason: .mismatch("\(what)'s \(name) is \(found) where \(expected) is signed"))
            }
        }
    }
}

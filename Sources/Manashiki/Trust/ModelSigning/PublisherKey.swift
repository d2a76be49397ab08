import Foundation
import ManashikiCore

/// A publisher's public key, pinned to verify key-mode signatures (`model_signing sign key`):
/// an ECDSA key on P-256, P-384 or P-521 as a PEM `PUBLIC KEY` (SubjectPublicKeyInfo), which
/// `openssl pkey -pubout` writes.
///
/// A key-mode `model.sig` names its key by a hint, the SHA-256 of the key's PEM as Python's
/// `cryptography` writes it (`-----BEGIN PUBLIC KEY-----`, base64 in 64-character lines); the
/// hint is recomputed here from the key's DER, so a pinned file with other line breaks or
/// comments matches the same signatures.
public struct PublisherKey: Sendable, Hashable, CustomStringConvertible {
    let key: PublicKey
    /// The hint a bundle signed by this key carries (64 lowercase hex).
    public let hint: String
    /// Where it came from (`file /etc/manashiki/publisher.pub.pem`), for messages.
    public let origin: String

    /// A key from PEM text; `origin` names it in messages.
    /// - Throws: `PublisherTrustError` naming `origin` and what is wrong.
    public init(pem: String, origin: String = "inline PEM") throws {
        var parsed: PublicKey?
        var lastError: PublicKeyError?
        for scheme in [SignatureScheme.ecdsaP256SHA256, .ecdsaP384SHA384, .ecdsaP521SHA512] {
            do { parsed = try PublicKey(scheme: scheme, pem: pem); break } catch { lastError = error }
        }
        guard let parsed else {
            throw PublisherTrustError(origin: origin, problem: "is not an ECDSA P-256, P-384 or P-521 public key (\(lastError.map { "\($0)" } ?? "unreadable"))")
        }
        key = parsed
        hint = SHA256Hasher.hash(Data(Self.canonicalPEM(parsed.spkiDER).utf8)).hex
        self.origin = origin
    }

    /// A key from a PEM file.
    public init(contentsOf url: URL) throws {
        guard let data = FileManager.default.contents(atPath: url.path), data.count <= 16 << 10 else {
            throw PublisherTrustError(origin: "file \(url.path)", problem: "is missing, unreadable or larger than 16 KiB")
        }
        try self.init(pem: String(decoding: data, as: UTF8.self), origin: "file \(url.path)")
    }

    /// `ECDSA P-256 key sha256:1a2b3c4d5e6f… (file …)`.
    public var description: String { "\(key.algorithm.rawValue.replacingOccurrences(of: "EC ", with: "ECDSA ")) key \(fingerprint) (\(origin))" }

    /// `sha256:` and the first 16 digits of the hint: how a key is named in messages and `status`.
    public var fingerprint: String { "sha256:\(hint.prefix(16))" }

    /// The PEM Python's `cryptography` writes for a SubjectPublicKeyInfo.
    static func canonicalPEM(_ der: [UInt8]) -> String {
        let base64 = Data(der).base64EncodedString()
        var lines: [Substring] = []
        var rest = Substring(base64)
        while !rest.isEmpty { lines.append(rest.prefix(64)); rest = rest.dropFirst(64) }
        return "-----BEGIN PUBLIC KEY-----\n" + lines.joined(separator: "\n") + "\n-----END PUBLIC KEY-----\n"
    }
}

/// A pinned key or root that cannot be used: where it came from and what is wrong.
public struct PublisherTrustError: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
    /// `file /etc/manashiki/publisher.pub.pem` or `inline PEM`.
    public var origin: String
    /// What is wrong with it.
    public var problem: String
    /// `file …: is not an ECDSA … key`.
    public var description: String { "\(origin) \(problem)" }
    /// The description.
    public var errorDescription: String? { description }
}

// Stand-in for Apple's CryptoKit as the package uses it, with the Swift signatures of
// developer.apple.com/documentation/cryptokit (SHA256, HMAC, SymmetricKey). Types only.
import Foundation
public protocol Digest: Sequence, ContiguousBytes, Hashable, Sendable where Element == UInt8 {}
public protocol HashFunction {
    associatedtype Digest: CryptoKit.Digest
    init()
    mutating func update(bufferPointer: UnsafeRawBufferPointer)
    func finalize() -> Digest
}
public struct SHA256Digest: Digest {
    let bytes: [UInt8]
    public func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try bytes.withUnsafeBytes(body) }
}
public struct SHA256: HashFunction, Sendable {
    public init() {}
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) {}
    public func finalize() -> SHA256Digest { SHA256Digest(bytes: []) }
}
// SHA384 and SHA512 as SHA256 (developer.apple.com/documentation/cryptokit/sha384, /sha512; iOS 13, macOS 10.15).
public struct SHA384Digest: Digest {
    let bytes: [UInt8]
    public func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try bytes.withUnsafeBytes(body) }
}
public struct SHA384: HashFunction, Sendable {
    public init() {}
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) {}
    public func finalize() -> SHA384Digest { SHA384Digest(bytes: []) }
}
public struct SHA512Digest: Digest {
    let bytes: [UInt8]
    public func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try bytes.withUnsafeBytes(body) }
}
public struct SHA512: HashFunction, Sendable {
    public init() {}
    public mutating func update(bufferPointer: UnsafeRawBufferPointer) {}
    public func finalize() -> SHA512Digest { SHA512Digest(bytes: []) }
}
public struct SymmetricKey: Sendable {
    public init<D: ContiguousBytes>(data: D) {}
}
public protocol MessageAuthenticationCode: Sequence, ContiguousBytes, Hashable where Element == UInt8 {}
public struct HashedAuthenticationCode<H: HashFunction>: MessageAuthenticationCode {
    let bytes: [UInt8]
    public func makeIterator() -> IndexingIterator<[UInt8]> { bytes.makeIterator() }
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R { try bytes.withUnsafeBytes(body) }
    public static func == (a: Self, b: Self) -> Bool { a.bytes == b.bytes }
    public func hash(into h: inout Hasher) { h.combine(bytes) }
}
public struct HMAC<H: HashFunction> {
    public static func authenticationCode<D: DataProtocol>(for data: D, using key: SymmetricKey) -> HashedAuthenticationCode<H> {
        HashedAuthenticationCode(bytes: [])
    }
}
// Signature verification (ManashikiCore's SignatureEngine): Curve25519.Signing.PublicKey,
// P256/P384/P521.Signing.PublicKey and their ECDSASignature, with the signatures of
// developer.apple.com/documentation/cryptokit/curve25519/signing/publickey and
// /documentation/cryptokit/p256/signing/publickey (iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1).
public enum Curve25519 {
    public enum Signing {
        public struct PublicKey: Sendable {
            public init<D: ContiguousBytes>(rawRepresentation: D) throws {}
            public var rawRepresentation: Data { Data() }
            public func isValidSignature<S: DataProtocol, D: DataProtocol>(_ signature: S, for data: D) -> Bool { false }
        }
        // Signing (ManashikiCore's SigningEngine, the development registry's TUF keys):
        // developer.apple.com/documentation/cryptokit/curve25519/signing/privatekey
        // (iOS 13, macOS 10.15, tvOS 13, watchOS 6, visionOS 1).
        public struct PrivateKey: Sendable {
            public init() {}
            public init<D: ContiguousBytes>(rawRepresentation data: D) throws {}
            public var publicKey: PublicKey { fatalError() }
            public var rawRepresentation: Data { Data() }
            public func signature<D: DataProtocol>(for data: D) throws -> Data { Data() }
        }
    }
}
public enum P256 {
    public enum Signing {
        public struct PublicKey: Sendable {
            public init<Bytes: ContiguousBytes>(x963Representation: Bytes) throws {}
            public func isValidSignature<D: DataProtocol>(_ signature: ECDSASignature, for data: D) -> Bool { false }
        }
        public struct ECDSASignature: Sendable {
            public init<D: DataProtocol>(derRepresentation: D) throws {}
            public init<D: DataProtocol>(rawRepresentation: D) throws {}
        }
    }
}
public enum P384 {
    public enum Signing {
        public struct PublicKey: Sendable {
            public init<Bytes: ContiguousBytes>(x963Representation: Bytes) throws {}
            public func isValidSignature<D: DataProtocol>(_ signature: ECDSASignature, for data: D) -> Bool { false }
        }
        public struct ECDSASignature: Sendable {
            public init<D: DataProtocol>(derRepresentation: D) throws {}
            public init<D: DataProtocol>(rawRepresentation: D) throws {}
        }
    }
}
public enum P521 {
    public enum Signing {
        public struct PublicKey: Sendable {
            public init<Bytes: ContiguousBytes>(x963Representation: Bytes) throws {}
            public func isValidSignature<D: DataProtocol>(_ signature: ECDSASignature, for data: D) -> Bool { false }
        }
        public struct ECDSASignature: Sendable {
            public init<D: DataProtocol>(derRepresentation: D) throws {}
            public init<D: DataProtocol>(rawRepresentation: D) throws {}
        }
    }
}

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

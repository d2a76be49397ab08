// Stand-in for Apple's Security framework, with the Swift signatures of developer.apple.com/documentation/security.
// CFData/CFArray/CFError are aliases so that the toll-free-bridging casts Apple allows type-check here.
import Foundation
import FoundationNetworking
public typealias OSStatus = Int32
public let errSecSuccess: OSStatus = 0
public typealias CFData = Data
public typealias CFArray = [Any]
public final class CFError: @unchecked Sendable {}
public final class SecTrust: @unchecked Sendable {}
public final class SecCertificate: @unchecked Sendable {}
public func SecCertificateCreateWithData(_ allocator: AnyObject?, _ data: CFData) -> SecCertificate? { nil }
public func SecTrustSetAnchorCertificates(_ trust: SecTrust, _ anchorCertificates: CFArray?) -> OSStatus { 0 }
public func SecTrustSetAnchorCertificatesOnly(_ trust: SecTrust, _ anchorCertificatesOnly: Bool) -> OSStatus { 0 }
public func SecTrustEvaluateWithError(_ trust: SecTrust, _ error: UnsafeMutablePointer<CFError?>?) -> Bool { false }
extension URLProtectionSpace { public var serverTrust: SecTrust? { nil } }
extension URLCredential { public convenience init(trust: SecTrust) { self.init(user: "", password: "", persistence: .none) } }
// Public keys (ManashikiCore's SignatureEngine, RSASSA-PSS): developer.apple.com/documentation/security/
// seckeycreatewithdata(_:_:_:) and seckeyverifysignature(_:_:_:_:_:) (iOS 10, macOS 10.12, tvOS 10,
// watchOS 3, visionOS 1). CFString and CFDictionary are stand-in aliases so the literal
// `[kSecAttrKeyType: kSecAttrKeyTypeRSA] as CFDictionary` type-checks as on Apple platforms.
public typealias CFString = String
public typealias CFDictionary = [AnyHashable: Any]
public final class SecKey: @unchecked Sendable {}
public struct SecKeyAlgorithm: Sendable, Hashable {
    public static let rsaSignatureMessagePSSSHA256 = SecKeyAlgorithm()
}
public let kSecAttrKeyType: CFString = "type"
public let kSecAttrKeyTypeRSA: CFString = "42"
public let kSecAttrKeyClass: CFString = "kcls"
public let kSecAttrKeyClassPublic: CFString = "0"
public func SecKeyCreateWithData(_ keyData: CFData, _ attributes: CFDictionary, _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> SecKey? { nil }
public func SecKeyVerifySignature(_ key: SecKey, _ algorithm: SecKeyAlgorithm, _ signedData: CFData, _ signature: CFData,
                                  _ error: UnsafeMutablePointer<Unmanaged<CFError>?>?) -> Bool { false }
// Certificate chains against pinned anchors (ManashikiCore's CertificateChainEngine), from
// developer.apple.com/documentation/security: SecPolicyCreateBasicX509() (iOS 2, macOS 10.6),
// SecTrustCreateWithCertificates(_:_:_:) (iOS 2, macOS 10.3), SecTrustSetNetworkFetchAllowed(_:_:)
// (iOS 7, macOS 10.9), SecTrustSetVerifyDate(_:_:) (iOS 2, macOS 10.3); tvOS 9, watchOS 2 and
// visionOS 1 for each. Apple declares the certificates and policies as CFTypeRef; here they are
// the narrower CFArray and AnyObject?, so what type-checks here compiles there. CFDate is
// toll-free bridged with NSDate, so `date as CFDate` converts a Date on Apple platforms.
public typealias CFDate = Date
public final class SecPolicy: @unchecked Sendable {}
public func SecPolicyCreateBasicX509() -> SecPolicy { SecPolicy() }
public func SecTrustCreateWithCertificates(_ certificates: CFArray, _ policies: AnyObject?, _ trust: UnsafeMutablePointer<SecTrust?>) -> OSStatus { 0 }
public func SecTrustSetNetworkFetchAllowed(_ trust: SecTrust, _ allowFetch: Bool) -> OSStatus { 0 }
public func SecTrustSetVerifyDate(_ trust: SecTrust, _ verifyDate: CFDate) -> OSStatus { 0 }
// Keychain items (Manashiki's KeychainHighWaterMarks), from developer.apple.com/documentation/security:
// SecItemCopyMatching(_:_:), SecItemAdd(_:_:), SecItemUpdate(_:_:) (iOS 2, macOS 10.6, tvOS 9, watchOS 2,
// visionOS 1); errSecItemNotFound and errSecDuplicateItem (`var …: OSStatus { get }`, iOS 2, macOS 10.0);
// the keys and values, each `let …: CFString`: kSecClass, kSecClassGenericPassword, kSecAttrService,
// kSecAttrAccount, kSecValueData, kSecReturnData, kSecMatchLimit, kSecMatchLimitOne (iOS 2, macOS 10.6),
// kSecAttrAccessible, kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly (iOS 4, macOS 10.9),
// kSecAttrAccessGroup (iOS 3, macOS 10.9), kSecAttrSynchronizable (iOS 7, macOS 10.9),
// kSecUseDataProtectionKeychain (iOS 13, macOS 10.15, tvOS 13, watchOS 6); tvOS 9, watchOS 2 and
// visionOS 1 for the others. CFTypeRef is AnyObject in Swift. The values here are placeholders.
public typealias CFTypeRef = AnyObject
public var errSecItemNotFound: OSStatus { -25300 }
public var errSecDuplicateItem: OSStatus { -25299 }
public let kSecClass: CFString = "class"
public let kSecClassGenericPassword: CFString = "genp"
public let kSecAttrService: CFString = "svce"
public let kSecAttrAccount: CFString = "acct"
public let kSecValueData: CFString = "v_Data"
public let kSecReturnData: CFString = "r_Data"
public let kSecMatchLimit: CFString = "m_Limit"
public let kSecMatchLimitOne: CFString = "m_LimitOne"
public let kSecAttrAccessible: CFString = "pdmn"
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly: CFString = "cku"
public let kSecAttrAccessGroup: CFString = "agrp"
public let kSecAttrSynchronizable: CFString = "sync"
public let kSecUseDataProtectionKeychain: CFString = "nleg"
public func SecItemCopyMatching(_ query: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { errSecItemNotFound }
public func SecItemAdd(_ attributes: CFDictionary, _ result: UnsafeMutablePointer<CFTypeRef?>?) -> OSStatus { 0 }
public func SecItemUpdate(_ query: CFDictionary, _ attributesToUpdate: CFDictionary) -> OSStatus { errSecItemNotFound }

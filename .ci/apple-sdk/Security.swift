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

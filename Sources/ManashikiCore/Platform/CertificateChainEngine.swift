#if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
import Foundation
import Security
#else
import Foundation
import CManashikiCrypto
#endif

/// X.509 path validation against pinned anchors only, offline, at a given time: the platform
/// part of `CertificateChain` (which has already checked validity periods and the leaf's usage
/// portably).
///
/// Apple platforms: `SecTrustCreateWithCertificates` (leaf first, intermediates after) with
/// `SecPolicyCreateBasicX509()`, `SecTrustSetAnchorCertificates` +
/// `SecTrustSetAnchorCertificatesOnly(trust, true)` (never the system's roots),
/// `SecTrustSetNetworkFetchAllowed(trust, false)`, `SecTrustSetVerifyDate`, then
/// `SecTrustEvaluateWithError`. Availability, from developer.apple.com/documentation (all below
/// the deployment targets macOS 13, iOS 16, tvOS 16, watchOS 9, visionOS 1):
/// `SecTrustCreateWithCertificates` iOS 2, macOS 10.3, tvOS 9, watchOS 2, visionOS 1;
/// `SecPolicyCreateBasicX509` iOS 2, macOS 10.6, tvOS 9, watchOS 2, visionOS 1;
/// `SecTrustSetAnchorCertificates` iOS 2, macOS 10.3; `SecTrustSetAnchorCertificatesOnly`
/// iOS 2, macOS 10.6; `SecTrustSetNetworkFetchAllowed` iOS 7, macOS 10.9, tvOS 9, watchOS 2,
/// visionOS 1; `SecTrustSetVerifyDate` iOS 2, macOS 10.3, tvOS 9, watchOS 2, visionOS 1;
/// `SecTrustEvaluateWithError` iOS 12, macOS 10.14, tvOS 12, watchOS 5, visionOS 1;
/// `SecCertificateCreateWithData` iOS 2, macOS 10.6. Not compiled or run on Apple platforms in
/// this repository's CI (docs/apple-platforms.md, "What is verified on Linux only").
///
/// Linux: OpenSSL's `X509_STORE` holding only the anchors, `X509_V_FLAG_PARTIAL_CHAIN` (an
/// anchor need not be self-signed), the verification time set, the intermediates as untrusted
/// certificates, `X509_verify_cert`. Not `X509_V_FLAG_X509_STRICT`: it adds requirements
/// (authority and subject key identifiers) that neither Apple's basic X.509 policy nor
/// upstream's verifier make, and a chain must verify on every platform or on none.
enum CertificateChainEngine {
    /// nil when `leaf` chains through `intermediates` to one of `anchors` at `time`.
    static func verify(leaf: [UInt8], intermediates: [[UInt8]], anchors: [[UInt8]], at time: Date) -> CertificateChain.Failure? {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        let chain = ([leaf] + intermediates).compactMap { SecCertificateCreateWithData(nil, Data($0) as CFData) }
        let roots = anchors.compactMap { SecCertificateCreateWithData(nil, Data($0) as CFData) }
        guard chain.count == intermediates.count + 1, roots.count == anchors.count else { return .invalid("the platform cannot read a certificate") }
        var made: SecTrust?
        guard SecTrustCreateWithCertificates(chain as CFArray, SecPolicyCreateBasicX509(), &made) == errSecSuccess, let trust = made,
              SecTrustSetAnchorCertificates(trust, roots as CFArray) == errSecSuccess,
              SecTrustSetAnchorCertificatesOnly(trust, true) == errSecSuccess,
              SecTrustSetNetworkFetchAllowed(trust, false) == errSecSuccess,
              SecTrustSetVerifyDate(trust, time as CFDate) == errSecSuccess else { return .invalid("the platform cannot evaluate the chain") }
        var error: CFError?
        if SecTrustEvaluateWithError(trust, &error) { return nil }
        return .untrusted(error.map { "\($0)" } ?? "the platform's trust evaluation failed")
        #else
        return OpenSSLChain.verify(leaf: leaf, intermediates: intermediates, anchors: anchors, at: time)
        #endif
    }
}

#if !(os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS))
/// libcrypto's path validation (Linux).
private enum OpenSSLChain {
    static func verify(leaf: [UInt8], intermediates: [[UInt8]], anchors: [[UInt8]], at time: Date) -> CertificateChain.Failure? {
        var owned: [OpaquePointer] = []
        defer { owned.forEach { X509_free($0) } }
        func parse(_ der: [UInt8]) -> OpaquePointer? {
            der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
                var cursor = buffer.baseAddress
                guard let x = d2i_X509(nil, &cursor, buffer.count) else { return nil }
                owned.append(x)
                return cursor == buffer.baseAddress.map({ $0 + buffer.count }) ? x : nil
            }
        }
        guard let store = X509_STORE_new() else { return .invalid("libcrypto could not allocate a certificate store") }
        defer { X509_STORE_free(store) }
        for der in anchors {
            guard let x = parse(der), X509_STORE_add_cert(store, x) == 1 else { return .invalid("a pinned root cannot be read by libcrypto") }
        }
        guard let leafX = parse(leaf) else { return .invalid("the signing certificate cannot be read by libcrypto") }
        guard let untrusted = OPENSSL_sk_new_null() else { return .invalid("libcrypto could not allocate a stack") }
        defer { OPENSSL_sk_free(untrusted) }
        for der in intermediates {
            guard let x = parse(der), OPENSSL_sk_push(untrusted, UnsafeRawPointer(x)) > 0 else { return .invalid("an intermediate certificate cannot be read by libcrypto") }
        }
        guard let context = X509_STORE_CTX_new() else { return .invalid("libcrypto could not allocate a verification context") }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leafX, untrusted) == 1 else { return .invalid("libcrypto could not start the verification") }
        let parameters = X509_STORE_CTX_get0_param(context)
        X509_VERIFY_PARAM_set_flags(parameters, UInt(X509_V_FLAG_PARTIAL_CHAIN))
        X509_VERIFY_PARAM_set_time(parameters, time_t(time.timeIntervalSince1970))
        if X509_verify_cert(context) == 1 { return nil }
        let code = X509_STORE_CTX_get_error(context)
        let depth = X509_STORE_CTX_get_error_depth(context)
        let text = String(cString: X509_verify_cert_error_string(Int(code)))
        let which = depth == 0 ? "the signing certificate" : "certificate \(depth) of the path"
        switch code {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT,
             X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN, X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_CERT_UNTRUSTED:
            return .untrusted("\(which): \(text)")
        default:
            return .invalid("\(which): \(text)")
        }
    }
}
#endif

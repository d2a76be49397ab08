import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
import Security
#endif

/// Answers a `URLSession` server-trust challenge with `TLSTrust`'s CAs as anchors next to the
/// system's (`URLSessionTransport`'s delegate calls it from
/// `urlSession(_:didReceive:completionHandler:)`).
///
/// Apple platforms: the challenge's `SecTrust` (which already carries the SSL policy for the
/// host, so the name is still checked) gets the bundle's certificates with
/// `SecTrustSetAnchorCertificates`, then `SecTrustSetAnchorCertificatesOnly(trust, false)`
/// re-enables the system's anchors, and `SecTrustEvaluateWithError` decides. Trusted: the
/// credential `URLCredential(trust:)`; not trusted: default handling, so the task fails with
/// the system's own certificate error (mapped to `APIError.untrustedCertificate`).
///
/// Availability, from developer.apple.com/documentation (all older than the deployment targets
/// macOS 13, iOS 16, tvOS 16, watchOS 9, visionOS 1, so no `#available`):
/// `URLSessionDelegate.urlSession(_:didReceive:completionHandler:)` and
/// `URLSession.AuthChallengeDisposition` iOS 7, macOS 10.9, tvOS 9, watchOS 2, visionOS 1;
/// `SecCertificateCreateWithData` iOS 2, macOS 10.6, tvOS 9, watchOS 2, visionOS 1;
/// `SecTrustSetAnchorCertificates` iOS 2, macOS 10.3, tvOS 9, watchOS 2, visionOS 1;
/// `SecTrustSetAnchorCertificatesOnly` iOS 2, macOS 10.6, tvOS 9, watchOS 2, visionOS 1;
/// `SecTrustEvaluateWithError` iOS 12, macOS 10.14, tvOS 12, watchOS 5, visionOS 1;
/// `URLCredential(trust:)` iOS 3, macOS 10.6, tvOS 9, watchOS 2, visionOS 1.
/// Not compiled or run on Apple platforms in this repository's CI (see docs/apple-platforms.md, "What is verified on Linux only").
///
/// Linux: FoundationNetworking does not hand server trust to the delegate; default handling
/// (the bundle is applied by `CurlTransport` there instead).
struct ServerTrustEvaluation: Sendable {
    /// DER certificates to add as anchors.
    let certificates: [Data]

    init(trust: TLSTrust) { certificates = trust.certificates }

    /// The disposition and credential for `challenge`.
    func evaluate(_ challenge: URLAuthenticationChallenge) -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        #if os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        guard !certificates.isEmpty,
              challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
              let serverTrust = challenge.protectionSpace.serverTrust else { return (.performDefaultHandling, nil) }
        let anchors = certificates.compactMap { SecCertificateCreateWithData(nil, $0 as CFData) }
        guard !anchors.isEmpty,
              SecTrustSetAnchorCertificates(serverTrust, anchors as CFArray) == errSecSuccess,
              SecTrustSetAnchorCertificatesOnly(serverTrust, false) == errSecSuccess else { return (.performDefaultHandling, nil) }
        var error: CFError?
        if SecTrustEvaluateWithError(serverTrust, &error) { return (.useCredential, URLCredential(trust: serverTrust)) }
        return (.performDefaultHandling, nil)
        #else
        return (.performDefaultHandling, nil)
        #endif
    }
}

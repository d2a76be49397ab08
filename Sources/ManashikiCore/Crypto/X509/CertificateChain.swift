import Foundation

/// Verifies an X.509 chain (the signing certificate first, then intermediates) against pinned
/// anchors at a given time, offline: never the system's roots, no network fetch of missing
/// issuers, no revocation check (there is no network at an air-gapped site; a compromised
/// signing key is handled by removing its root or key from the manifest).
///
/// Portable checks first, the same on every platform: every certificate readable, every one
/// valid at `time` (notBefore ≤ time ≤ notAfter), the leaf allowed to sign code
/// (`X509Certificate.maySignCode`). Then the platform's path validation
/// (`CertificateChainEngine`: libcrypto's `X509_verify_cert` on Linux, `SecTrust` with anchors
/// only on Apple platforms) decides issuers, signatures and CA constraints; a pinned
/// certificate is an anchor wherever it sits in the path (an intermediate may be pinned).
package enum CertificateChain {
    /// Why a chain is refused.
    package enum Failure: Error, Sendable, Hashable {
        /// A certificate is not valid at the time of verification.
        case notValidNow(subject: String, notBefore: Date, notAfter: Date)
        /// The leaf may not sign code (`X509Certificate.usageDescription`).
        case wrongUsage(subject: String, usage: String)
        /// No path to a pinned anchor (the platform's reason).
        case untrusted(String)
        /// A certificate cannot be read, or a signature in the path does not verify.
        case invalid(String)
    }

    /// The leaf, once `chain` verified against `anchors` (DER) at `time`.
    package static func verify(_ chain: [[UInt8]], anchors: [[UInt8]], at time: Date) throws(Failure) -> X509Certificate {
        guard let leafDER = chain.first else { throw .invalid("the chain is empty") }
        guard !anchors.isEmpty else { throw .untrusted("no root is pinned") }
        var certificates: [X509Certificate] = []
        for (i, der) in chain.enumerated() {
            do { certificates.append(try X509Certificate(der: der)) } catch {
                throw .invalid("certificate \(i) of the chain is \(error)")
            }
        }
        for c in certificates where time < c.notBefore || time > c.notAfter {
            throw .notValidNow(subject: c.subject, notBefore: c.notBefore, notAfter: c.notAfter)
        }
        let leaf = certificates[0]
        guard leaf.maySignCode, !leaf.isCA else {
            throw .wrongUsage(subject: leaf.subject, usage: leaf.isCA ? "a CA certificate (basicConstraints CA:TRUE)" : leaf.usageDescription)
        }
        if let failure = CertificateChainEngine.verify(leaf: leafDER, intermediates: Array(chain.dropFirst()), anchors: anchors, at: time) {
            throw failure
        }
        return leaf
    }
}

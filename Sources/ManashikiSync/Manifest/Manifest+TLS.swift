import Foundation
import Manashiki

extension Manifest {
    /// `registry.caBundle` resolved against `baseDirectory`, or nil when the manifest names none.
    public var caBundleFile: URL? { registry.caBundle.map { PathResolver.resolve($0, against: baseDirectory) } }

    /// The CAs the run trusts: the system's, plus `registry.caBundle`'s.
    /// - Throws: `ManifestError` at `registry.caBundle` when the file is missing, unreadable or
    ///   holds no PEM certificate.
    public func tlsTrust() throws(ManifestError) -> TLSTrust {
        guard let file = caBundleFile else { return .system }
        do {
            return try TLSTrust(caBundle: file)
        } catch {
            throw ManifestError(problems: [ManifestProblem(
                path: "registry.caBundle", message: "\(file.path) \(error.problem)",
                hint: "name a PEM file holding the CA certificate(s) to trust (-----BEGIN CERTIFICATE----- blocks), e.g. the corporate or mirror CA, or remove the key")],
                caBundleFailure: error)
        }
    }

    /// The transport a run builds when none is given: `DefaultTransport` with the manifest's
    /// `policies.network` and `tlsTrust()`.
    /// - Throws: `ManifestError` as `tlsTrust()` does.
    public func defaultTransport() throws(ManifestError) -> DefaultTransport {
        DefaultTransport(policy: policies.network ?? .default, trust: try tlsTrust())
    }
}

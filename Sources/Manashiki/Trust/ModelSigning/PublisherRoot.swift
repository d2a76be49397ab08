import Foundation
import ManashikiCore

/// A root certificate pinned for certificate-mode signatures (`model_signing sign certificate`):
/// a signing certificate must chain to one of these (never to the system's roots).
public struct PublisherRoot: Sendable, Hashable, CustomStringConvertible {
    let certificate: X509Certificate
    /// Where it came from, for messages.
    public let origin: String

    /// The root's subject (`CN=…, O=…`).
    public var subject: String { certificate.subject }

    /// `CN=Example CA (file /etc/manashiki/ca.pem)`.
    public var description: String { "\(subject) (\(origin))" }

    /// Every certificate of a PEM text (a file may hold several roots).
    /// - Throws: `PublisherTrustError` when it holds none or one cannot be read.
    public static func certificates(pem: String, origin: String = "inline PEM") throws -> [PublisherRoot] {
        let certificates: [X509Certificate]
        do { certificates = try X509Certificate.certificates(pem: pem) } catch {
            throw PublisherTrustError(origin: origin, problem: "holds a certificate that cannot be read (\(error))")
        }
        guard !certificates.isEmpty else { throw PublisherTrustError(origin: origin, problem: "holds no -----BEGIN CERTIFICATE----- block") }
        return certificates.map { PublisherRoot(certificate: $0, origin: origin) }
    }

    /// Every certificate of a PEM file.
    public static func certificates(contentsOf url: URL) throws -> [PublisherRoot] {
        guard let data = FileManager.default.contents(atPath: url.path), data.count <= 1 << 20 else {
            throw PublisherTrustError(origin: "file \(url.path)", problem: "is missing, unreadable or larger than 1 MiB")
        }
        return try certificates(pem: String(decoding: data, as: UTF8.self), origin: "file \(url.path)")
    }
}

import Foundation

/// Which certificate authorities (CAs) HTTPS servers are verified against: the system's, plus
/// the CAs of a PEM bundle you give (a company's private CA, the CA of a TLS-inspecting proxy,
/// an internal mirror's CA). Public hosts keep working: the bundle adds to the system's trust,
/// it never replaces it.
///
/// ```swift
/// let corporate = try TLSTrust(caBundle: Bundle.main.url(forResource: "corp-ca", withExtension: "pem")!)
/// let client = try ManashikiClient(apiKey: key, transport: DefaultTransport(trust: corporate))
/// ```
///
/// | platform | `.system` | with `caBundle` |
/// |---|---|---|
/// | Linux (`CurlTransport`) | libcurl's CA file and directory, or `CURL_CA_BUNDLE` / `SSL_CERT_FILE` / `SSL_CERT_DIR` when set | the bundle's PEM followed by libcurl's own CA file's (`CURLOPT_CAINFO_BLOB`); the system CA directory stays; the variables are ignored |
/// | Apple (`URLSessionTransport`) | the system's trust store (and profiles the user installed) | the bundle's CAs are added as anchors next to the system's (`SecTrustSetAnchorCertificatesOnly(false)`) |
///
/// The host name is always checked; nothing here turns verification off.
public struct TLSTrust: Sendable, Hashable {
    /// The PEM file of extra CA certificates, or nil to trust the system's CAs alone.
    public let caBundle: URL?
    /// The DER encoding of each certificate in `caBundle`, in file order (empty for `.system`).
    public let certificates: [Data]
    /// The bundle's bytes as read by `init(caBundle:)`: what libcurl is given (`CALocations`),
    /// so the file is read once, and a file replaced or removed afterwards changes nothing
    /// until a new `TLSTrust` is made (`manashiki-sync` makes one per run).
    let pem: Data

    /// The system's CAs alone (on Linux, also the `CURL_CA_BUNDLE`, `SSL_CERT_FILE` and
    /// `SSL_CERT_DIR` environment variables, as curl reads them).
    public static let system = TLSTrust(caBundle: nil, certificates: [])

    private init(caBundle: URL?, certificates: [Data], pem: Data = Data()) {
        self.caBundle = caBundle
        self.certificates = certificates
        self.pem = pem
    }

    /// Trusts the CA certificates in the PEM file at `caBundle` (or the one certificate of a
    /// binary DER `.cer`/`.crt` file) in addition to the system's.
    /// The file is read now, once: a missing or unreadable file, or one without a certificate,
    /// is refused here rather than at the first connection, and every request verifies against
    /// what was read (make a new `TLSTrust`, and transport, to pick up a rotated file).
    /// - Throws: `TLSTrust.BundleError` saying what is wrong with the file.
    public init(caBundle: URL) throws(BundleError) {
        let path = caBundle.path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw BundleError(path: path, problem: "does not exist")
        }
        guard !isDirectory.boolValue else {
            throw BundleError(path: path, problem: "is a directory, not a PEM file")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw BundleError(path: path, problem: "cannot be read (check its permissions)")
        }
        let certificates = Self.certificates(inPEM: data)
        guard !certificates.isEmpty else {
            // Corporate IT often hands out the CA as a binary (DER) .cer/.crt file: one
            // certificate, which is used as it is (libcurl gets it as PEM).
            if Self.isDERCertificate(data) {
                self.init(caBundle: caBundle.standardizedFileURL, certificates: [data], pem: Self.pem(der: data))
                return
            }
            throw BundleError(path: path, problem: "holds no PEM certificate (no \"-----BEGIN CERTIFICATE-----\" block)")
        }
        self.init(caBundle: caBundle.standardizedFileURL, certificates: certificates, pem: data)
    }

    /// Whether `data` is one DER-encoded structure filling the file: an ASN.1 SEQUENCE (0x30)
    /// whose long-form length (a certificate is longer than 127 bytes) covers the rest exactly.
    static func isDERCertificate(_ data: Data) -> Bool {
        let bytes = [UInt8](data.prefix(6))
        guard bytes.count >= 4, bytes[0] == 0x30, (0x81...0x84).contains(bytes[1]) else { return false }
        let lengthBytes = Int(bytes[1] & 0x7F)
        guard bytes.count >= 2 + lengthBytes else { return false }
        let length = bytes[2..<(2 + lengthBytes)].reduce(0) { $0 << 8 | Int($1) }
        return 2 + lengthBytes + length == data.count
    }

    /// `der` as one PEM certificate block.
    static func pem(der: Data) -> Data {
        let base64 = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return Data("-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n".utf8)
    }

    /// The DER bytes of every `-----BEGIN CERTIFICATE-----` block in `pem` that decodes.
    /// Works on a byte array: a system bundle (Debian's is 210 KB, read whenever `CURL_CA_BUNDLE`
    /// or `SSL_CERT_FILE` names it, so by every `DefaultTransport()` there) took 15 ms per
    /// transport when walked as `Character`s and 25 ms in release when searched and filtered as
    /// `Data` (a copy per search, an append per byte); as bytes it takes about 1 ms.
    static func certificates(inPEM pem: Data) -> [Data] {
        let bytes = [UInt8](pem)
        let begin = Array("-----BEGIN CERTIFICATE-----".utf8), end = Array("-----END CERTIFICATE-----".utf8)
        var found: [Data] = []
        var from = 0
        while let start = firstIndex(of: begin, in: bytes, from: from),
              let stop = firstIndex(of: end, in: bytes, from: start + begin.count) {
            // Base64 lines with their line breaks (and any blanks) removed.
            var body: [UInt8] = []
            body.reserveCapacity(stop - start - begin.count)
            for byte in bytes[(start + begin.count)..<stop] where !(0x09...0x0D).contains(byte) && byte != 0x20 {
                body.append(byte)
            }
            if let der = Data(base64Encoded: Data(body)), !der.isEmpty { found.append(der) }
            from = stop + end.count
        }
        return found
    }

    /// Where `needle` first starts in `haystack` at or after `from`.
    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = from
        while index <= haystack.count - needle.count {
            if haystack[index] == first && haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// A CA bundle that cannot be used, with the reason.
    public struct BundleError: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
        /// The file's path.
        public let path: String
        /// What is wrong with it ("does not exist", "holds no PEM certificate …").
        public let problem: String

        /// `the CA bundle /etc/corp-ca.pem does not exist`.
        public var description: String { "the CA bundle \(path) \(problem)" }
        /// What is wrong and what to do.
        public var errorDescription: String? {
            "\(description.prefix(1).uppercased())\(description.dropFirst()). Give a PEM file with the CA certificate(s) to trust (-----BEGIN CERTIFICATE----- blocks)."
        }
    }
}

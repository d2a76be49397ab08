import Foundation

/// The parts of an X.509 certificate (RFC 5280) a publisher signature's checks need, read from
/// its DER strictly and with bounds: the subject (for messages and `status`), the validity
/// period, the SubjectPublicKeyInfo (the key that signed), and the extensions that say what it
/// may do (basicConstraints, keyUsage, extendedKeyUsage). Path validation (issuers, signatures,
/// CA constraints) is the platform's (`CertificateChain`); this is what is read portably, so
/// Apple platforms and Linux decide usage and validity alike.
package struct X509Certificate: Sendable, Hashable {
    /// The largest certificate read.
    package static let maximumSize = 16 << 10

    /// The whole certificate, DER.
    package let der: [UInt8]
    /// The subject, as `CN=…, O=…` (the attributes RFC 4514 names, others as their OID).
    package let subject: String
    /// The issuer, in the same form.
    package let issuer: String
    /// The start of the validity period.
    package let notBefore: Date
    /// The end of the validity period.
    package let notAfter: Date
    /// The SubjectPublicKeyInfo, DER.
    package let subjectPublicKeyInfo: [UInt8]
    /// Whether basicConstraints says it is a CA.
    package let isCA: Bool
    /// The keyUsage bits (bit 0 digitalSignature … bit 8 decipherOnly), nil when absent.
    package let keyUsage: UInt16?
    /// The extendedKeyUsage OIDs in dotted form, nil when absent.
    package let extendedKeyUsage: [String]?

    /// `1.3.6.1.5.5.7.3.3`, id-kp-codeSigning.
    package static let codeSigning = "1.3.6.1.5.5.7.3.3"
    /// `2.5.29.37.0`, anyExtendedKeyUsage.
    package static let anyExtendedKeyUsage = "2.5.29.37.0"

    /// Whether it may sign code: keyUsage digitalSignature, or extendedKeyUsage codeSigning
    /// (what upstream model_signing accepts: either suffices). A certificate whose
    /// extendedKeyUsage lists neither codeSigning nor anyExtendedKeyUsage is refused even with
    /// digitalSignature: an EKU restricts what the key may be used for (RFC 5280 4.2.1.12).
    package var maySignCode: Bool {
        if let eku = extendedKeyUsage, !eku.contains(Self.codeSigning), !eku.contains(Self.anyExtendedKeyUsage) { return false }
        if let eku = extendedKeyUsage, eku.contains(Self.codeSigning) { return true }
        return (keyUsage ?? 0) & 1 != 0
    }

    /// What the usage extensions say, for a refusal: `key usage keyEncipherment, extended key
    /// usage serverAuth`.
    package var usageDescription: String {
        let names = ["digitalSignature", "nonRepudiation", "keyEncipherment", "dataEncipherment", "keyAgreement", "keyCertSign", "cRLSign", "encipherOnly", "decipherOnly"]
        let ku = keyUsage.map { bits in names.enumerated().filter { bits & (1 << $0.offset) != 0 }.map(\.element).joined(separator: " ") }
        let ekuNames = ["1.3.6.1.5.5.7.3.1": "serverAuth", "1.3.6.1.5.5.7.3.2": "clientAuth", Self.codeSigning: "codeSigning",
                        "1.3.6.1.5.5.7.3.4": "emailProtection", "1.3.6.1.5.5.7.3.8": "timeStamping"]
        let eku = extendedKeyUsage.map { $0.map { ekuNames[$0] ?? $0 }.joined(separator: " ") }
        return "key usage \(ku.map { $0.isEmpty ? "none" : $0 } ?? "absent"), extended key usage \(eku.map { $0.isEmpty ? "none" : $0 } ?? "absent")"
    }

    /// Reads a certificate (DER, at most `maximumSize` bytes).
    package init(der: [UInt8]) throws(X509Error) {
        guard der.count <= Self.maximumSize else { throw .malformed("a certificate of \(der.count) bytes, more than \(Self.maximumSize)") }
        do { self = try Self.parse(der) } catch {
            if case .malformed(let what) = error { throw .malformed(what) }
            throw .malformed("\(error)")
        }
    }

    private init(der: [UInt8], subject: String, issuer: String, validity: (Date, Date), spki: [UInt8], extensions: X509Extensions) {
        self.der = der
        self.subject = subject
        self.issuer = issuer
        (notBefore, notAfter) = validity
        subjectPublicKeyInfo = spki
        isCA = extensions.isCA
        keyUsage = extensions.keyUsage
        extendedKeyUsage = extensions.extendedKeyUsage
    }

    /// RFC 5280 4.1: `Certificate ::= SEQUENCE { tbsCertificate, signatureAlgorithm, signatureValue }`.
    private static func parse(_ der: [UInt8]) throws(PublicKeyError) -> X509Certificate {
        var outer = DERReader(der)
        var certificate = try outer.sequence(what: "certificate")
        try outer.expectEnd(what: "certificate")
        var tbs = try certificate.sequence(what: "tbsCertificate")
        _ = try certificate.sequence(what: "signatureAlgorithm")
        _ = try certificate.read(.bitString, what: "signatureValue")
        try certificate.expectEnd(what: "certificate")
        if tbs.nextTag == 0xA0 { _ = try tbs.read(tagByte: 0xA0, what: "version") }
        _ = try tbs.read(.integer, what: "serialNumber")
        _ = try tbs.sequence(what: "signature algorithm")
        let issuer = try tbs.distinguishedName(what: "issuer")
        var validity = try tbs.sequence(what: "validity")
        let notBefore = try validity.time(what: "notBefore")
        let notAfter = try validity.time(what: "notAfter")
        try validity.expectEnd(what: "validity")
        let subject = try tbs.distinguishedName(what: "subject")
        let spki = Array(tbs.contents(try tbs.read(tagByte: DERReader.Tag.sequence.rawValue, what: "subjectPublicKeyInfo", whole: true)))
        var extensions = X509Extensions()
        // issuerUniqueID [1], subjectUniqueID [2] (skipped), extensions [3], in that order.
        for tag: UInt8 in [0x81, 0xA1, 0x82, 0xA2] where tbs.nextTag == tag { _ = try tbs.read(tagByte: tag, what: "unique identifier") }
        if tbs.nextTag == 0xA3 { extensions = try X509Extensions(tbs.reader(try tbs.read(tagByte: 0xA3, what: "extensions"))) }
        try tbs.expectEnd(what: "tbsCertificate")
        return X509Certificate(der: der, subject: subject, issuer: issuer, validity: (notBefore, notAfter), spki: spki, extensions: extensions)
    }

    /// Every certificate of a PEM text (`-----BEGIN CERTIFICATE-----` blocks; other text between
    /// blocks is ignored, as OpenSSL does), in order.
    package static func certificates(pem text: String) throws(X509Error) -> [X509Certificate] {
        guard text.utf8.count <= 1 << 20 else { throw .malformed("a PEM file larger than 1 MiB") }
        var out: [X509Certificate] = []
        var body: String?
        for raw in text.split(omittingEmptySubsequences: true, whereSeparator: \.isNewline) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line == "-----BEGIN CERTIFICATE-----" { body = ""; continue }
            if line == "-----END CERTIFICATE-----" {
                guard let b = body, let data = Data(base64Encoded: b) else { throw .malformed("a CERTIFICATE block that is not base64") }
                out.append(try X509Certificate(der: Array(data)))
                body = nil
                continue
            }
            if body != nil { body! += line }
        }
        return out
    }
}

/// A certificate that cannot be read.
package enum X509Error: Error, Sendable, Hashable, CustomStringConvertible {
    /// The DER is not a certificate this reader accepts; the text says where.
    case malformed(String)

    package var description: String {
        switch self {
        case .malformed(let what): return "not a valid X.509 certificate: \(what)"
        }
    }
}

/// The extensions this reader uses (others are skipped; an unknown critical one is refused,
/// as RFC 5280 4.2 requires, and so is an extension that appears twice).
struct X509Extensions {
    var isCA = false
    var keyUsage: UInt16?
    var extendedKeyUsage: [String]?

    /// Extensions path validation understands (key identifiers, names, policies, constraints,
    /// CRL points, authority information), left to the platform's path validation.
    static let understood: Set<String> = ["2.5.29.14", "2.5.29.35", "2.5.29.17", "2.5.29.18", "2.5.29.30", "2.5.29.32", "2.5.29.33",
                                          "2.5.29.36", "2.5.29.54", "2.5.29.31", "1.3.6.1.5.5.7.1.1"]

    init() {}

    /// Reads `[3] EXPLICIT Extensions` (the reader is over the `[3]`'s contents).
    init(_ wrapper: DERReader) throws(PublicKeyError) {
        var wrapper = wrapper
        var list = try wrapper.sequence(what: "extensions")
        try wrapper.expectEnd(what: "extensions")
        var seen = Set<String>()
        while list.nextTag != nil {
            var ext = try list.sequence(what: "extension")
            let oid = try ext.dottedObjectIdentifier(what: "extension id")
            guard seen.insert(oid).inserted else { throw .malformed("the extension \(oid) appears twice") }
            let critical = ext.nextTag == DERReader.Tag.boolean.rawValue ? try ext.boolean(what: "critical") : false
            let value = ext.reader(try ext.read(.octetString, what: "extension value"))
            try ext.expectEnd(what: "extension")
            try read(oid, value, critical: critical)
        }
    }

    private mutating func read(_ oid: String, _ value: DERReader, critical: Bool) throws(PublicKeyError) {
        var value = value
        switch oid {
        case "2.5.29.19": // basicConstraints ::= SEQUENCE { cA BOOLEAN DEFAULT FALSE, pathLen INTEGER OPTIONAL }
            var seq = try value.sequence(what: "basicConstraints")
            if seq.nextTag == DERReader.Tag.boolean.rawValue { isCA = try seq.boolean(what: "basicConstraints cA") }
        case "2.5.29.15": // keyUsage: BIT STRING, its first byte the number of unused bits
            let bits = value.contents(try value.read(.bitString, what: "keyUsage"))
            guard let unused = bits.first, unused < 8, bits.count >= 2 || unused == 0 else { throw .malformed("keyUsage: bad BIT STRING") }
            var v: UInt16 = 0
            for (i, b) in bits.dropFirst().prefix(2).enumerated() {
                for bit in 0..<8 where b & (0x80 >> bit) != 0 { v |= 1 << (i * 8 + bit) }
            }
            keyUsage = v
        case "2.5.29.37": // extendedKeyUsage ::= SEQUENCE SIZE (1..MAX) OF KeyPurposeId
            var seq = try value.sequence(what: "extendedKeyUsage")
            var oids: [String] = []
            while seq.nextTag != nil { oids.append(try seq.dottedObjectIdentifier(what: "key purpose")) }
            extendedKeyUsage = oids
        default:
            if critical && !Self.understood.contains(oid) { throw .malformed("an unknown critical extension \(oid)") }
            return
        }
        try value.expectEnd(what: "extension \(oid)")
    }
}

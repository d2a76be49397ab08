/// An X.509 SubjectPublicKeyInfo (RFC 5280 §4.1.2.7) read strictly: the algorithm and the key
/// bytes, checked for their kind's shape. It accepts exactly:
///
/// - `rsaEncryption` with NULL parameters, the key an RSAPublicKey (RFC 8017 A.1.1) of
///   2048–8192 bits with an odd exponent of at least 3;
/// - `id-ecPublicKey` on P-256, P-384 or P-521 (named curves), the point uncompressed
///   (`04 || X || Y`);
/// - `id-Ed25519` without parameters, 32 key bytes.
struct SubjectPublicKeyInfo: Sendable, Hashable {
    /// The kind of key.
    let algorithm: PublicKeyAlgorithm
    /// The key as the platform engines take it: Ed25519's 32 bytes, the EC point `04 || X || Y`,
    /// RSA's RSAPublicKey DER (PKCS #1).
    let keyBytes: [UInt8]
    /// The whole SubjectPublicKeyInfo, DER.
    let der: [UInt8]

    /// Largest SubjectPublicKeyInfo read (an 8192-bit RSA key is about 1.1 KiB).
    static let maximumLength = 4096

    static let rsaEncryption: [UInt8] = [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01]
    static let ecPublicKey: [UInt8] = [0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01]
    static let ed25519: [UInt8] = [0x2B, 0x65, 0x70]
    static let curves: [([UInt8], PublicKeyAlgorithm)] = [
        ([0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07], .ecP256),
        ([0x2B, 0x81, 0x04, 0x00, 0x22], .ecP384),
        ([0x2B, 0x81, 0x04, 0x00, 0x23], .ecP521),
    ]

    /// Parses `der`, refusing anything but the forms above.
    init(der: [UInt8]) throws(PublicKeyError) {
        guard der.count <= Self.maximumLength else { throw .malformed("SubjectPublicKeyInfo longer than \(Self.maximumLength) bytes") }
        var outer = DERReader(der)
        var spki = try outer.sequence(what: "SubjectPublicKeyInfo")
        try outer.expectEnd(what: "SubjectPublicKeyInfo")
        var identifier = try spki.sequence(what: "AlgorithmIdentifier")
        let oid = try identifier.objectIdentifier(what: "algorithm")
        let algorithm: PublicKeyAlgorithm
        if oid.elementsEqual(Self.rsaEncryption) {
            try identifier.null(what: "RSA parameters")
            algorithm = .rsa
        } else if oid.elementsEqual(Self.ecPublicKey) {
            let curve = try identifier.objectIdentifier(what: "EC curve")
            guard let match = Self.curves.first(where: { curve.elementsEqual($0.0) }) else {
                throw .malformed("EC curve is not P-256, P-384 or P-521")
            }
            algorithm = match.1
        } else if oid.elementsEqual(Self.ed25519) {
            algorithm = .ed25519
        } else {
            throw .malformed("algorithm is not RSA, EC or Ed25519")
        }
        try identifier.expectEnd(what: "AlgorithmIdentifier")
        let key = Array(try spki.bitString(what: "subjectPublicKey"))
        try spki.expectEnd(what: "SubjectPublicKeyInfo")
        try Self.checkShape(of: key, algorithm: algorithm)
        self.algorithm = algorithm
        self.keyBytes = key
        self.der = der
    }

    /// The SubjectPublicKeyInfo of a raw Ed25519 key.
    init(ed25519 raw: [UInt8]) throws(PublicKeyError) {
        guard raw.count == 32 else { throw .malformed("an ed25519 key is 32 bytes, not \(raw.count)") }
        try self.init(der: [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03] + Self.ed25519 + [0x03, 0x21, 0x00] + raw)
    }

    private static func checkShape(of key: [UInt8], algorithm: PublicKeyAlgorithm) throws(PublicKeyError) {
        switch algorithm {
        case .ed25519:
            guard key.count == 32 else { throw .malformed("Ed25519 key of \(key.count) bytes") }
        case .ecP256, .ecP384, .ecP521:
            let n = algorithm.coordinateLength ?? 0
            guard key.count == 1 + 2 * n, key.first == 0x04 else {
                throw .malformed("\(algorithm.rawValue) point is not uncompressed (04 || X || Y, \(1 + 2 * n) bytes)")
            }
        case .rsa:
            try checkRSA(key)
        }
    }

    private static func checkRSA(_ key: [UInt8]) throws(PublicKeyError) {
        var outer = DERReader(key)
        var rsa = try outer.sequence(what: "RSAPublicKey")
        try outer.expectEnd(what: "RSAPublicKey")
        let modulus = try rsa.unsignedInteger(what: "RSA modulus")
        let exponent = try rsa.unsignedInteger(what: "RSA exponent")
        try rsa.expectEnd(what: "RSAPublicKey")
        let bits = modulus.isEmpty ? 0 : (modulus.count - 1) * 8 + (8 - modulus[modulus.startIndex].leadingZeroBitCount)
        guard (2048...8192).contains(bits) else {
            throw .wrongKind(scheme: SignatureScheme.rsaPSSSHA256.rawValue, found: "an RSA key of \(bits) bits (2048 to 8192 are accepted)")
        }
        guard let last = exponent.last, last & 1 == 1, exponent.count <= 8, !(exponent.count == 1 && last < 3) else {
            throw .malformed("RSA exponent is not an odd number from 3 up")
        }
    }
}

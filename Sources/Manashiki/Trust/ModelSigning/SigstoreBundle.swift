import Foundation
import ManashikiCore

/// A Sigstore bundle v0.3 in its JSON form, as `model_signing sign key` and `sign certificate`
/// write `model.sig`: verification material (a public key hint, or an X.509 chain leaf first) and
/// a DSSE envelope. Parsed strictly and with bounds before anything in it is used; nothing here
/// is trusted until `PublisherSignatureVerifier` has checked the envelope's signature.
///
/// ```json
/// {"mediaType": "application/vnd.dev.sigstore.bundle.v0.3+json",
///  "verificationMaterial": {"publicKey": {"hint": "<sha256 of the key's PEM>"}, "tlogEntries": []},
///  "dsseEnvelope": {"payload": "<base64 in-toto statement>", "payloadType": "application/vnd.in-toto+json",
///                   "signatures": [{"sig": "<base64 DER ECDSA>", "keyid": ""}]}}
/// ```
/// Refused: other media types (v0.1, v0.2), keyless material (a single `certificate`, Rekor
/// `tlogEntries`, `timestampVerificationData`), a `messageSignature` instead of an envelope, an
/// envelope with other than exactly one signature, a key bundle without a hint.
struct SigstoreBundle: Sendable, Hashable {
    /// The one media type read.
    static let mediaType = "application/vnd.dev.sigstore.bundle.v0.3+json"
    /// The largest `model.sig` read (model_signing's are a few KiB; a chain of ten certificates
    /// fits many times over).
    static let maximumSize = 256 << 10
    /// The most certificates in a chain.
    static let maximumChainLength = 10

    /// How the signer is identified.
    enum Material: Sendable, Hashable {
        /// Key mode: the hint (lowercase hex SHA-256 of the key's PEM).
        case publicKey(hint: String)
        /// Certificate mode: DER certificates, the signing certificate first.
        case certificateChain([[UInt8]])
    }

    var material: Material
    var envelope: DSSEEnvelope

    /// Parses `data`.
    static func parse(_ data: Data) throws(PublisherSignatureProblem) -> SigstoreBundle {
        guard data.count <= maximumSize else { throw .malformed("it is \(data.count) bytes, more than \(maximumSize)") }
        let root: JSONValue
        do { root = try JSONValue.parse(data, limits: JSONLimits(maxDepth: 16)) } catch {
            throw .malformed("not JSON (\(error.message) at \(error.path.isEmpty ? "the top" : error.path))")
        }
        guard case .object(let top) = root else { throw .malformed("not a JSON object") }
        guard case .string(let type)? = top["mediaType"] else { throw .malformed("mediaType is missing") }
        guard type == mediaType else { throw .unsupportedBundle(mediaType: type) }
        guard case .object(let material)? = top["verificationMaterial"] else { throw .malformed("verificationMaterial is missing") }
        try refuseKeyless(material)
        if top["messageSignature"] != nil {
            throw .malformed("it holds a messageSignature, not a DSSE envelope (model_signing signs an in-toto statement in a DSSE envelope)")
        }
        guard case .object(let envelope)? = top["dsseEnvelope"] else { throw .malformed("dsseEnvelope is missing") }
        return SigstoreBundle(material: try readMaterial(material), envelope: try DSSEEnvelope(envelope))
    }

    /// Keyless Sigstore material: a Fulcio-style single certificate, log entries, timestamps.
    private static func refuseKeyless(_ material: [String: JSONValue]) throws(PublisherSignatureProblem) {
        if case .array(let entries)? = material["tlogEntries"], !entries.isEmpty {
            throw .keyless("it carries \(entries.count) Rekor transparency-log entr\(entries.count == 1 ? "y" : "ies")")
        }
        if material["timestampVerificationData"] != nil { throw .keyless("it carries timestamp verification data") }
        if material["certificate"] != nil { throw .keyless("it carries a single Fulcio-style certificate") }
    }

    private static func readMaterial(_ material: [String: JSONValue]) throws(PublisherSignatureProblem) -> Material {
        switch (material["publicKey"], material["x509CertificateChain"]) {
        case (.some, .some):
            throw .malformed("verificationMaterial has both a publicKey and a certificate chain")
        case (.object(let key)?, nil):
            guard case .string(let hint)? = key["hint"], !hint.isEmpty else { throw .missingKeyHint }
            guard Hex.isSHA256(hint) else { throw .malformed("verificationMaterial.publicKey.hint is not 64 lowercase hex digits") }
            return .publicKey(hint: hint)
        case (nil, .object(let chain)?):
            guard case .array(let items)? = chain["certificates"], !items.isEmpty else {
                throw .malformed("x509CertificateChain.certificates is missing or empty")
            }
            guard items.count <= maximumChainLength else { throw .malformed("the certificate chain has \(items.count) certificates, more than \(maximumChainLength)") }
            var ders: [[UInt8]] = []
            for (i, item) in items.enumerated() {
                guard case .object(let o) = item, case .string(let raw)? = o["rawBytes"], let der = Base64Field.decode(raw), !der.isEmpty else {
                    throw .malformed("x509CertificateChain.certificates[\(i)].rawBytes is not base64")
                }
                ders.append(der)
            }
            return .certificateChain(ders)
        case (nil, nil):
            throw .malformed("verificationMaterial has neither a publicKey nor an x509CertificateChain")
        default:
            throw .malformed("verificationMaterial.publicKey or .x509CertificateChain is not an object")
        }
    }
}

/// A DSSE envelope (secure-systems-lab/dsse v1.0): the payload, its type, and its one signature.
struct DSSEEnvelope: Sendable, Hashable {
    /// The in-toto payload type, the only one model_signing writes.
    static let inTotoPayloadType = "application/vnd.in-toto+json"

    var payloadType: String
    var payload: [UInt8]
    /// The signature bytes (DER ECDSA for model_signing).
    var signature: [UInt8]

    init(_ o: [String: JSONValue]) throws(PublisherSignatureProblem) {
        guard case .string(let type)? = o["payloadType"] else { throw .malformed("dsseEnvelope.payloadType is missing") }
        guard type == Self.inTotoPayloadType else { throw .statement("has payload type \"\(type.prefix(120))\", not \(Self.inTotoPayloadType)") }
        guard case .string(let text)? = o["payload"], let payload = Base64Field.decode(text), !payload.isEmpty else {
            throw .malformed("dsseEnvelope.payload is missing or not base64")
        }
        guard case .array(let signatures)? = o["signatures"] else { throw .malformed("dsseEnvelope.signatures is missing") }
        guard signatures.count == 1 else { throw .malformed("dsseEnvelope has \(signatures.count) signatures; a Sigstore bundle has exactly one") }
        guard case .object(let s) = signatures[0], case .string(let sig)? = s["sig"], let bytes = Base64Field.decode(sig), !bytes.isEmpty else {
            throw .malformed("dsseEnvelope.signatures[0].sig is missing or not base64")
        }
        payloadType = type
        self.payload = payload
        signature = bytes
    }

    /// The bytes signed: DSSE v1's pre-authentication encoding,
    /// `"DSSEv1" SP len(type) SP type SP len(body) SP body` (lengths in ASCII decimal bytes).
    var preAuthenticationEncoding: [UInt8] {
        Array("DSSEv1 \(payloadType.utf8.count) \(payloadType) \(payload.count) ".utf8) + payload
    }

    /// The encoding model_signing before 1.0 signed by mistake (`pae_compat` upstream): a
    /// capital `V`, and the payload as Python's `repr` of bytes (`b'…'` with escapes). Used only
    /// to name what a refused signature is.
    var compatibilityEncoding: [UInt8] {
        Array("DSSEV1 \(payloadType.utf8.count) \(payloadType) \(payload.count) \(PythonBytesRepr.repr(payload))".utf8)
    }
}

/// Protobuf JSON's `bytes`: standard base64, or URL-safe base64, padded or not.
enum Base64Field {
    static func decode(_ text: String) -> [UInt8]? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.utf8.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map { Array($0) }
    }
}

/// Python's `repr(bytes)`: `b'…'` (or `b"…"` when the bytes hold `'` and no `"`), with `\\`,
/// `\t`, `\n`, `\r`, the quote, and `\xhh` for bytes outside printable ASCII.
enum PythonBytesRepr {
    static func repr(_ bytes: [UInt8]) -> String {
        let quote: UInt8 = bytes.contains(0x27) && !bytes.contains(0x22) ? 0x22 : 0x27
        var out = "b" + String(UnicodeScalar(quote))
        for b in bytes {
            switch b {
            case 0x5C: out += "\\\\"
            case 0x09: out += "\\t"
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case quote: out += "\\" + String(UnicodeScalar(b))
            case 0x20..<0x7F: out.unicodeScalars.append(UnicodeScalar(b))
            default: out += "\\x" + Hex.encode([b])
            }
        }
        return out + String(UnicodeScalar(quote))
    }
}

import Foundation
@testable import ManashikiCore
import Testing

/// The X.509 reader's parts on hand-made DER: times (the UTCTime century rule, impossible
/// dates), object identifiers, BOOLEANs, and the extension rules (an unknown critical one, one
/// that appears twice).
@Suite("X.509 reader: DER times, identifiers and extensions")
struct X509CertificateTests {
    static func time(_ tag: UInt8, _ text: String) throws(PublicKeyError) -> Date {
        var reader = DERReader([tag, UInt8(text.utf8.count)] + Array(text.utf8))
        return try reader.time(what: "t")
    }

    @Test("UTCTime years 50-99 are 19xx and 00-49 are 20xx; GeneralizedTime is read as written", arguments: [
        (UInt8(0x17), "491231235959Z", 2_524_607_999.0),
        (UInt8(0x17), "500101000000Z", -631_152_000.0),
        (UInt8(0x17), "240229120000Z", 1_709_208_000.0),
        (UInt8(0x18), "20500101000000Z", 2_524_608_000.0),
    ])
    func times(tag: UInt8, text: String, seconds: Double) throws {
        #expect(try Self.time(tag, text).timeIntervalSince1970 == seconds)
    }

    @Test("Impossible dates, fractions, offsets and short forms are refused", arguments: [
        (UInt8(0x17), "230229120000Z"), (UInt8(0x17), "241301000000Z"), (UInt8(0x17), "240101240000Z"),
        (UInt8(0x17), "2401010000Z"), (UInt8(0x18), "20240101000000.5Z"), (UInt8(0x17), "240101000000+0100"),
        (UInt8(0x18), "240101000000Z"),
    ])
    func badTimes(tag: UInt8, text: String) {
        #expect(throws: PublicKeyError.self) { try Self.time(tag, text) }
    }

    @Test("Object identifiers in dotted form; padded components are not DER")
    func identifiers() {
        #expect(DERReader.dotted([0x55, 0x1D, 0x0F]) == "2.5.29.15")
        #expect(DERReader.dotted([0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x03]) == "1.3.6.1.5.5.7.3.3")
        #expect(DERReader.dotted([0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x09, 0x01]) == "1.2.840.113549.1.9.1")
        #expect(DERReader.dotted([0x55, 0x80, 0x1D]) == nil)
        #expect(DERReader.dotted([0x55, 0x9D]) == nil)
    }

    /// `Extensions` wrapped as `[3]`'s contents, each extension `(oid bytes, critical, value)`.
    static func extensions(_ items: [([UInt8], Bool, [UInt8])]) -> DERReader {
        func tlv(_ tag: UInt8, _ body: [UInt8]) -> [UInt8] { [tag, UInt8(body.count)] + body }
        let list = items.map { oid, critical, value in
            tlv(0x30, tlv(0x06, oid) + (critical ? [0x01, 0x01, 0xFF] : []) + tlv(0x04, value))
        }.reduce([], +)
        return DERReader(tlv(0x30, list))
    }

    @Test("keyUsage and extendedKeyUsage are read; an unknown critical extension and a repeated one are refused")
    func extensionRules() throws {
        let keyUsage: [UInt8] = [0x03, 0x02, 0x07, 0x80] // digitalSignature, 7 unused bits
        let eku: [UInt8] = [0x30, 0x0A, 0x06, 0x08, 0x2B, 0x06, 0x01, 0x05, 0x05, 0x07, 0x03, 0x03]
        let read = try X509Extensions(Self.extensions([([0x55, 0x1D, 0x0F], true, keyUsage), ([0x55, 0x1D, 0x25], false, eku)]))
        #expect(read.keyUsage == 1)
        #expect(read.extendedKeyUsage == [X509Certificate.codeSigning])
        #expect(throws: PublicKeyError.malformed("an unknown critical extension 1.2.3.4")) {
            try X509Extensions(Self.extensions([([0x2A, 0x03, 0x04], true, [0x05, 0x00])]))
        }
        #expect(try X509Extensions(Self.extensions([([0x2A, 0x03, 0x04], false, [0x05, 0x00])])).keyUsage == nil)
        #expect(throws: PublicKeyError.malformed("the extension 2.5.29.15 appears twice")) {
            try X509Extensions(Self.extensions([([0x55, 0x1D, 0x0F], true, keyUsage), ([0x55, 0x1D, 0x0F], true, keyUsage)]))
        }
    }
}

/// A strict, bounded reader of DER (ITU-T X.690): definite lengths in their shortest form only,
/// never past the end of its input, one tag at a time. It reads what public keys, ECDSA
/// signatures and X.509 certificates are made of (SEQUENCE, SET, INTEGER, BIT STRING, OCTET
/// STRING, BOOLEAN, OBJECT IDENTIFIER, NULL, times; any other tag by its byte, with
/// `read(tagByte:what:)`); anything else is a `PublicKeyError.malformed`.
struct DERReader {
    /// ASN.1 universal tags this reader knows.
    enum Tag: UInt8 {
        case boolean = 0x01, integer = 0x02, bitString = 0x03, octetString = 0x04, null = 0x05, objectIdentifier = 0x06
        case utcTime = 0x17, generalizedTime = 0x18, sequence = 0x30, set = 0x31
    }

    private let bytes: [UInt8]
    private var offset: Int
    private let end: Int

    /// Reads `bytes[range]` (the whole array by default).
    init(_ bytes: [UInt8], range: Range<Int>? = nil) {
        self.bytes = bytes
        offset = range?.lowerBound ?? 0
        end = range?.upperBound ?? bytes.count
    }

    /// Whether every byte has been read.
    var isAtEnd: Bool { offset == end }

    /// The tag of the next element, without reading it.
    var nextTag: UInt8? { offset < end ? bytes[offset] : nil }

    /// Reads one element with `tag` and returns the range of its contents.
    mutating func read(_ tag: Tag, what: String) throws(PublicKeyError) -> Range<Int> {
        try read(tagByte: tag.rawValue, what: what)
    }

    /// Reads one element whose identifier octet is `tagByte` (a context-specific `[3]` is
    /// `0xA3`) and returns the range of its contents, or of the whole element (identifier and
    /// length included) with `whole`.
    mutating func read(tagByte: UInt8, what: String, whole: Bool = false) throws(PublicKeyError) -> Range<Int> {
        guard offset < end, bytes[offset] == tagByte else {
            throw .malformed("\(what): expected DER tag 0x\(Hex.encode([tagByte]))")
        }
        let start = offset
        offset += 1
        let length = try readLength(what: what)
        guard length <= end - offset else { throw .malformed("\(what): length runs past the end") }
        let range = offset..<(offset + length)
        offset += length
        return whole ? start..<offset : range
    }

    /// Reads the next element whatever its tag: the tag and its contents' range.
    mutating func readAny(what: String) throws(PublicKeyError) -> (tag: UInt8, contents: Range<Int>) {
        guard let tag = nextTag else { throw .malformed("\(what): missing") }
        return (tag, try read(tagByte: tag, what: what))
    }

    /// The bytes of `range` (a range this reader returned).
    func contents(_ range: Range<Int>) -> ArraySlice<UInt8> { bytes[range] }

    /// A reader over the contents `range` (a range this reader returned).
    func reader(_ range: Range<Int>) -> DERReader { DERReader(bytes, range: range) }

    /// Reads a nested reader over a SEQUENCE's contents.
    mutating func sequence(what: String) throws(PublicKeyError) -> DERReader {
        DERReader(bytes, range: try read(.sequence, what: what))
    }

    /// Reads a non-negative INTEGER in its minimal encoding and returns its magnitude's bytes
    /// (no leading zero).
    mutating func unsignedInteger(what: String) throws(PublicKeyError) -> ArraySlice<UInt8> {
        let range = try read(.integer, what: what)
        let value = bytes[range]
        guard let first = value.first else { throw .malformed("\(what): empty INTEGER") }
        guard first & 0x80 == 0 else { throw .malformed("\(what): negative INTEGER") }
        if first == 0 {
            guard value.count > 1 else { return value.dropFirst() } // zero
            guard value[value.startIndex + 1] & 0x80 != 0 else { throw .malformed("\(what): INTEGER not minimally encoded") }
            return value.dropFirst()
        }
        return value
    }

    /// Reads a BIT STRING with no unused bits and returns its bytes.
    mutating func bitString(what: String) throws(PublicKeyError) -> ArraySlice<UInt8> {
        let range = try read(.bitString, what: what)
        guard let unused = bytes[range].first, unused == 0 else {
            throw .malformed("\(what): BIT STRING with unused bits")
        }
        return bytes[range].dropFirst()
    }

    /// Reads an OBJECT IDENTIFIER and returns its encoded contents.
    mutating func objectIdentifier(what: String) throws(PublicKeyError) -> ArraySlice<UInt8> {
        bytes[try read(.objectIdentifier, what: what)]
    }

    /// Reads a NULL.
    mutating func null(what: String) throws(PublicKeyError) {
        guard try read(.null, what: what).isEmpty else { throw .malformed("\(what): NULL with contents") }
    }

    /// Throws unless every byte has been read.
    func expectEnd(what: String) throws(PublicKeyError) {
        guard isAtEnd else { throw .malformed("\(what): \(end - offset) bytes after the end") }
    }

    /// A definite length, short form below 128, long form in at most 3 bytes, minimal.
    private mutating func readLength(what: String) throws(PublicKeyError) -> Int {
        guard offset < end else { throw .malformed("\(what): missing length") }
        let first = bytes[offset]
        offset += 1
        if first < 0x80 { return Int(first) }
        let count = Int(first & 0x7F)
        guard count >= 1, count <= 3, count <= end - offset else { throw .malformed("\(what): unsupported length form") }
        var length = 0
        for _ in 0..<count {
            length = length << 8 | Int(bytes[offset])
            offset += 1
        }
        guard length >= 0x80, length >= 1 << (8 * (count - 1)) else {
            throw .malformed("\(what): length not minimally encoded")
        }
        return length
    }
}

/// DER encoding of what this package writes: ECDSA's `SEQUENCE { INTEGER r, INTEGER s }`.
enum DERWriter {
    /// `SEQUENCE { INTEGER a, INTEGER b, ... }` of non-negative big-endian magnitudes.
    static func sequence(ofUnsignedIntegers values: [ArraySlice<UInt8>]) -> [UInt8] {
        var body: [UInt8] = []
        for value in values {
            var magnitude = Array(value.drop(while: { $0 == 0 }))
            if magnitude.isEmpty || magnitude[0] & 0x80 != 0 { magnitude.insert(0, at: 0) }
            body += [DERReader.Tag.integer.rawValue] + length(magnitude.count) + magnitude
        }
        return [DERReader.Tag.sequence.rawValue] + length(body.count) + body
    }

    private static func length(_ n: Int) -> [UInt8] {
        if n < 0x80 { return [UInt8(n)] }
        if n < 0x100 { return [0x81, UInt8(n)] }
        return [0x82, UInt8(n >> 8), UInt8(n & 0xFF)]
    }
}

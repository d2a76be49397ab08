import Foundation

/// What X.509 certificates need beyond keys: BOOLEAN, times, object identifiers in dotted form,
/// distinguished names for messages.
extension DERReader {
    /// Reads a BOOLEAN (DER: one byte, 0x00 or 0xFF).
    mutating func boolean(what: String) throws(PublicKeyError) -> Bool {
        let value = contents(try read(.boolean, what: what))
        guard value.count == 1, value.first == 0 || value.first == 0xFF else { throw .malformed("\(what): BOOLEAN not DER") }
        return value.first == 0xFF
    }

    /// Reads a UTCTime (`YYMMDDHHMMSSZ`, 1950–2049) or GeneralizedTime (`YYYYMMDDHHMMSSZ`), the
    /// forms RFC 5280 4.1.2.5 allows (seconds present, no fraction, Zulu).
    mutating func time(what: String) throws(PublicKeyError) -> Date {
        let isUTC = nextTag == Tag.utcTime.rawValue
        let text = String(decoding: contents(try read(isUTC ? .utcTime : .generalizedTime, what: what)), as: UTF8.self)
        let digits = Array(text.utf8.dropLast()).map { Int($0) - 0x30 }
        guard text.hasSuffix("Z"), digits.count == (isUTC ? 12 : 14), digits.allSatisfy({ (0...9).contains($0) }) else {
            throw .malformed("\(what): \"\(text.prefix(20))\" is not a UTC time")
        }
        func number(_ at: Int, _ count: Int) -> Int { digits[at..<(at + count)].reduce(0) { $0 * 10 + $1 } }
        var year = isUTC ? number(0, 2) : number(0, 4)
        if isUTC { year += year < 50 ? 2000 : 1900 }
        let rest = isUTC ? 2 : 4
        let (month, day) = (number(rest, 2), number(rest + 2, 2))
        let (hour, minute, second) = (number(rest + 4, 2), number(rest + 6, 2), number(rest + 8, 2))
        guard (1...12).contains(month), (1...Self.days(inMonth: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60 else { throw .malformed("\(what): \"\(text)\" is not a date") }
        let days = Self.daysSince1970(year: year, month: month, day: day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }

    /// Reads an OBJECT IDENTIFIER in dotted form (`2.5.29.15`).
    mutating func dottedObjectIdentifier(what: String) throws(PublicKeyError) -> String {
        let encoded = try objectIdentifier(what: what)
        guard let text = Self.dotted(encoded) else { throw .malformed("\(what): OBJECT IDENTIFIER not DER") }
        return text
    }

    /// An OBJECT IDENTIFIER's contents in dotted form, nil when not minimally encoded or a
    /// component is over 2^40.
    static func dotted(_ contents: ArraySlice<UInt8>) -> String? {
        guard let last = contents.last, last & 0x80 == 0 else { return nil }
        var parts: [String] = []
        var value = 0
        var starting = true
        for b in contents {
            if starting && b == 0x80 { return nil } // a leading 0x80 pads a component
            starting = false
            value = value << 7 | Int(b & 0x7F)
            if value > 1 << 40 { return nil }
            if b & 0x80 == 0 {
                if parts.isEmpty {
                    let first = min(value / 40, 2)
                    parts += ["\(first)", "\(value - first * 40)"]
                } else {
                    parts.append("\(value)")
                }
                value = 0
                starting = true
            }
        }
        return parts.joined(separator: ".")
    }

    /// A Name (RDNSequence) as `CN=…, O=…` in the certificate's order, for messages: the
    /// attributes RFC 4514 names by their short name, others by their OID, control characters
    /// shown as `?`, each value at most 200 characters.
    mutating func distinguishedName(what: String) throws(PublicKeyError) -> String {
        var rdns = try sequence(what: what)
        var out: [String] = []
        while rdns.nextTag != nil {
            var set = rdns.reader(try rdns.read(.set, what: "\(what) RDN"))
            while set.nextTag != nil {
                var pair = try set.sequence(what: "\(what) attribute")
                let oid = try pair.dottedObjectIdentifier(what: "\(what) attribute type")
                let value = pair.contents(try pair.readAny(what: "\(what) attribute value").contents)
                try pair.expectEnd(what: "\(what) attribute")
                let text = String(decoding: value, as: UTF8.self).unicodeScalars
                    .map { $0.value < 0x20 || $0.value == 0x7F ? "?" : String($0) }.joined()
                out.append("\(Self.attributeNames[oid] ?? oid)=\(text.prefix(200))")
            }
        }
        return out.joined(separator: ", ")
    }

    static let attributeNames = ["2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O", "2.5.4.11": "OU",
                                 "2.5.4.5": "serialNumber", "1.2.840.113549.1.9.1": "emailAddress", "0.9.2342.19200300.100.1.25": "DC"]

    static func days(inMonth month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's days_from_civil).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}

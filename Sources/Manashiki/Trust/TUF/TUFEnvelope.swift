import Foundation
import ManashikiCore

/// One metadata file, read but not yet trusted: its `signed` part, the canonical JSON bytes
/// the signatures cover (securesystemslib's `encode_canonical` of the parsed `signed`, as
/// python-tuf verifies), and the signatures by key id.
///
/// Reading refuses, before anything is verified: a file longer than `maxLength` (checked
/// before parsing), JSON that is not strict (duplicate keys, trailing commas), a non-integral
/// number in `signed` (canonical JSON has none), a `_type` other than the one expected, and two
/// signatures naming the same key id.
struct TUFEnvelope: Sendable {
    /// The role the file is read as (`root`, a delegated role's name), for errors.
    let role: String
    /// The `signed` object.
    let signed: TUFFields
    /// The bytes the signatures cover.
    let canonical: [UInt8]
    /// Signature bytes by key id (a signature that is not hex is kept empty: it verifies nothing).
    let signatures: [String: [UInt8]]

    /// Reads `data` as metadata of `type` (`"root"`, `"timestamp"`, `"snapshot"`, `"targets"`)
    /// for `role`.
    init(_ data: Data, type: String, role: String, maxLength: Int) throws(TUFError) {
        guard data.count <= maxLength else { throw TUFError(role: role, reason: .tooLarge(limit: maxLength)) }
        self.role = role
        let document: JSONValue
        do { document = try JSONValue.parse(data, limits: JSONLimits(maxDepth: 64)) } catch {
            throw TUFError(role: role, reason: .malformed("not JSON: \(error.description)"))
        }
        let top = try TUFFields(document, path: "", role: role)
        signed = try top.object("signed")
        let signedValue = try top.value("signed")
        do { canonical = try signedValue.canonicalBytes() } catch {
            throw TUFError(role: role, reason: .malformed("signed.\(error.path) is not an integer (canonical JSON has no other numbers)"))
        }
        var signatures: [String: [UInt8]] = [:]
        for (i, item) in try top.array("signatures").enumerated() {
            let entry = try TUFFields(item, path: "signatures[\(i)]", role: role)
            let keyid = try entry.string("keyid")
            guard signatures[keyid] == nil else { throw top.fail("two signatures name key id \(keyid)") }
            signatures[keyid] = Hex.decode(try entry.string("sig")) ?? []
        }
        self.signatures = signatures
        let found = try signed.string("_type")
        guard found == type else { throw top.fail("signed._type is \"\(found)\" where \"\(type)\" is expected") }
    }
}

/// What every role's `signed` has: version, spec version and expiry.
struct TUFCommon: Sendable, Hashable {
    /// The version, at least 1.
    let version: Int
    /// When it stops being valid.
    let expires: Date

    init(_ signed: TUFFields) throws(TUFError) {
        version = try signed.positive("version")
        let spec = try signed.string("spec_version")
        let parts = spec.split(separator: ".", omittingEmptySubsequences: false)
        guard (2...3).contains(parts.count), parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigit) }) else {
            throw signed.fail("spec_version \"\(spec)\" is not a version number")
        }
        guard parts[0] == "1" else { throw signed.fail("spec_version \(spec) is not 1.x, the specification this client follows") }
        let text = try signed.string("expires")
        guard let expires = TUFTime.parse(text) else { throw signed.fail("expires \"\(text)\" is not YYYY-MM-DDTHH:MM:SSZ") }
        self.expires = expires
    }

    /// Whether it has expired at `now` (expiry is inclusive, as in python-tuf).
    func isExpired(at now: Date) -> Bool { now >= expires }
}

private extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) && isASCII }
}

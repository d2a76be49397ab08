import ManashikiCore

/// A public key as TUF metadata lists it (`keys` of root and of delegations): its id, type and
/// scheme, and the verifying key when this package supports the pair and the key is
/// well-formed. An unsupported or malformed key is kept but verifies nothing, so it can never
/// help reach a threshold (and metadata naming it still loads, as securesystemslib's ignores
/// keys it cannot use only at verification time).
struct TUFKey: Sendable, Hashable {
    let keyid: String
    let keytype: String
    let scheme: String
    /// The verifying key, or nil when it cannot verify anything here.
    let publicKey: PublicKey?

    /// The (keytype, scheme) pairs securesystemslib verifies that this package does too.
    static let supported: [String: Set<String>] = [
        "ed25519": ["ed25519"],
        "ecdsa": ["ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384", "ecdsa-sha2-nistp521"],
        "ecdsa-sha2-nistp256": ["ecdsa-sha2-nistp256"],
        "ecdsa-sha2-nistp384": ["ecdsa-sha2-nistp384"],
        "ecdsa-sha2-nistp521": ["ecdsa-sha2-nistp521"],
        "rsa": ["rsassa-pss-sha256"],
    ]

    init(keyid: String, fields: TUFFields) throws(TUFError) {
        self.keyid = keyid
        keytype = try fields.string("keytype")
        scheme = try fields.string("scheme")
        let value = try fields.object("keyval").string("public")
        if TUFKey.supported[keytype]?.contains(scheme) == true {
            publicKey = try? PublicKey(schemeName: scheme, tufPublic: value)
        } else {
            publicKey = nil
        }
    }

    /// What makes two keys the same key: the scheme and the key bytes, whatever their ids, so a
    /// key listed under two ids still counts once toward a threshold.
    var identity: String {
        guard let publicKey else { return "unusable:" + keyid }
        return publicKey.scheme.rawValue + ":" + Hex.encode(publicKey.spkiDER)
    }
}

/// The keys and threshold a delegator requires of one role (`roles.<name>` of root, a
/// delegated role of targets).
struct TUFRoleKeys: Sendable, Hashable {
    /// Key ids, unique.
    let keyids: [String]
    /// How many distinct keys must sign, at least 1.
    let threshold: Int

    init(fields: TUFFields) throws(TUFError) {
        keyids = try fields.strings("keyids")
        guard Set(keyids).count == keyids.count else { throw fields.fail("\(fields.name("keyids")) lists a key id twice") }
        threshold = try fields.int("threshold")
        guard threshold >= 1 else { throw fields.fail("\(fields.name("threshold")) must be at least 1") }
    }
}

/// Counts the distinct keys of a role whose signature over a payload verifies.
enum TUFSignatureCheck {
    /// Throws `threshold` unless `role`'s threshold of distinct keys (from `keys`) signed
    /// `payload` with `signatures` (key id → signature bytes).
    static func verify(_ roleName: String, role: TUFRoleKeys, keys: [String: TUFKey], payload: [UInt8],
                       signatures: [String: [UInt8]], by delegator: String) throws(TUFError) {
        let signed = count(role: role, keys: keys, payload: payload, signatures: signatures)
        guard signed >= role.threshold else {
            throw TUFError(role: roleName, reason: .threshold(signed: signed, threshold: role.threshold, by: delegator))
        }
    }

    /// The number of distinct keys of `role` that signed `payload`.
    static func count(role: TUFRoleKeys, keys: [String: TUFKey], payload: [UInt8], signatures: [String: [UInt8]]) -> Int {
        var counted = Set<String>()
        for keyid in role.keyids {
            guard let key = keys[keyid], let publicKey = key.publicKey, let signature = signatures[keyid],
                  !counted.contains(key.identity) else { continue }
            if publicKey.isValidSignature(signature, for: payload) { counted.insert(key.identity) }
        }
        return counted.count
    }
}

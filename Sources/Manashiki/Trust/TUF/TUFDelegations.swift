import Foundation
import ManashikiCore

/// A targets role's `delegations`: keys, and either an ordered list of delegated roles or
/// succinct hash-bin roles (TAP 15).
struct TUFDelegations: Sendable, Hashable {
    let keys: [String: TUFKey]
    /// In the order listed (the order of trust).
    let roles: [TUFDelegatedRole]
    let succinct: TUFSuccinctRoles?

    init(_ fields: TUFFields) throws(TUFError) {
        let keyFields = try fields.object("keys")
        var keys: [String: TUFKey] = [:]
        for keyid in keyFields.members.keys { keys[keyid] = try TUFKey(keyid: keyid, fields: keyFields.object(keyid)) }
        self.keys = keys
        let hasRoles = fields.members["roles"] != nil, hasSuccinct = fields.members["succinct_roles"] != nil
        guard hasRoles != hasSuccinct else { throw fields.fail("\(fields.path) must have exactly one of roles and succinct_roles") }
        var roles: [TUFDelegatedRole] = []
        if hasRoles {
            for (i, item) in try fields.array("roles").enumerated() {
                let role = try TUFDelegatedRole(TUFFields(item, path: "\(fields.path).roles[\(i)]", role: fields.role))
                guard !roles.contains(where: { $0.name == role.name }) else { throw fields.fail("\(fields.path).roles names \(role.name) twice") }
                roles.append(role)
            }
        }
        self.roles = roles
        succinct = hasSuccinct ? try TUFSuccinctRoles(fields.object("succinct_roles")) : nil
    }

    func requirement(for role: String) -> TUFRoleKeys? {
        if let succinct { return succinct.contains(role) ? succinct.keys : nil }
        return roles.first(where: { $0.name == role })?.keys
    }

    /// The roles trusted for `path`, in order, each with whether it is terminating.
    func roles(for path: String) -> [(name: String, terminating: Bool)] {
        if let succinct { return [(succinct.role(for: path), true)] }
        return roles.filter { $0.isDelegated(path) }.map { ($0.name, $0.terminating) }
    }
}

/// One delegated role: its name, keys, whether it is terminating, and the target paths it is
/// trusted for (shell-style patterns, or SHA-256 prefixes of the path).
struct TUFDelegatedRole: Sendable, Hashable {
    let name: String
    let keys: TUFRoleKeys
    let terminating: Bool
    let paths: [String]?
    let pathHashPrefixes: [String]?

    init(_ fields: TUFFields) throws(TUFError) {
        name = try fields.string("name")
        guard !name.isEmpty, !TUFRoleName.all.contains(name) else {
            throw fields.fail("\(fields.name("name")) must not be empty or a top-level role's name")
        }
        keys = try TUFRoleKeys(fields: fields)
        terminating = try fields.bool("terminating")
        paths = fields.members["paths"] == nil ? nil : try fields.strings("paths")
        pathHashPrefixes = fields.members["path_hash_prefixes"] == nil ? nil : try fields.strings("path_hash_prefixes")
        guard (paths == nil) != (pathHashPrefixes == nil) else {
            throw fields.fail("\(fields.path) must have exactly one of paths and path_hash_prefixes")
        }
    }

    /// Whether `path` is one this role is trusted for.
    func isDelegated(_ path: String) -> Bool {
        if let pathHashPrefixes {
            let digest = DigestAlgorithm.sha256.hex(Array(path.utf8))
            return pathHashPrefixes.contains { digest.hasPrefix($0) }
        }
        return (paths ?? []).contains { TUFPathPattern.matches(path, pattern: $0) }
    }
}

/// Hash-bin delegation (TAP 15): `2^bit_length` roles `<prefix>-<hex>`, all terminating.
struct TUFSuccinctRoles: Sendable, Hashable {
    let keys: TUFRoleKeys
    let bitLength: Int
    let namePrefix: String

    init(_ fields: TUFFields) throws(TUFError) {
        keys = try TUFRoleKeys(fields: fields)
        bitLength = try fields.int("bit_length")
        guard (1...32).contains(bitLength) else { throw fields.fail("\(fields.name("bit_length")) must be 1 to 32") }
        namePrefix = try fields.string("name_prefix")
    }

    private var suffixLength: Int { String((1 << bitLength) - 1, radix: 16).count }

    func role(for path: String) -> String {
        let digest = DigestAlgorithm.sha256.digest(Array(path.utf8))
        let word = UInt32(digest[0]) << 24 | UInt32(digest[1]) << 16 | UInt32(digest[2]) << 8 | UInt32(digest[3])
        let bin = Int(word >> UInt32(32 - bitLength))
        let hex = String(bin, radix: 16)
        return "\(namePrefix)-\(String(repeating: "0", count: suffixLength - hex.count))\(hex)"
    }

    func contains(_ role: String) -> Bool {
        let prefix = namePrefix + "-"
        guard role.hasPrefix(prefix) else { return false }
        let suffix = role.dropFirst(prefix.count)
        guard suffix.count == suffixLength, suffix.allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
              let bin = Int(suffix, radix: 16) else { return false }
        return bin < 1 << bitLength
    }
}

import Foundation

/// The top-level role names.
enum TUFRoleName {
    static let root = "root", timestamp = "timestamp", snapshot = "snapshot", targets = "targets"
    static let all: Set<String> = [root, timestamp, snapshot, targets]
}

/// A delegator: root (of the top-level roles) or a targets role (of its delegations).
protocol TUFDelegator: Sendable {
    /// The keys it lists.
    var keys: [String: TUFKey] { get }
    /// The keys and threshold it requires of `role`, nil when it does not delegate `role`.
    func requirement(for role: String) -> TUFRoleKeys?
}

extension TUFDelegator {
    /// Throws unless `envelope` is signed by the threshold `self` requires of `role`.
    func verify(_ envelope: TUFEnvelope, as role: String, delegator: String) throws(TUFError) {
        guard let requirement = requirement(for: role) else {
            throw TUFError(role: role, reason: .malformed("\(delegator) does not delegate \(role)"))
        }
        try TUFSignatureCheck.verify(role, role: requirement, keys: keys, payload: envelope.canonical,
                                     signatures: envelope.signatures, by: delegator)
    }
}

/// `root.json`'s `signed`.
struct TUFRoot: TUFDelegator, Hashable {
    let common: TUFCommon
    let keys: [String: TUFKey]
    let roles: [String: TUFRoleKeys]
    let consistentSnapshot: Bool

    init(_ envelope: TUFEnvelope) throws(TUFError) {
        let signed = envelope.signed
        common = try TUFCommon(signed)
        let keyFields = try signed.object("keys")
        var keys: [String: TUFKey] = [:]
        for keyid in keyFields.members.keys { keys[keyid] = try TUFKey(keyid: keyid, fields: keyFields.object(keyid)) }
        self.keys = keys
        let roleFields = try signed.object("roles")
        guard Set(roleFields.members.keys) == TUFRoleName.all else {
            throw signed.fail("signed.roles must name exactly root, timestamp, snapshot and targets")
        }
        var roles: [String: TUFRoleKeys] = [:]
        for name in TUFRoleName.all { roles[name] = try TUFRoleKeys(fields: roleFields.object(name)) }
        self.roles = roles
        consistentSnapshot = signed.members["consistent_snapshot"] == nil ? false : try signed.bool("consistent_snapshot")
    }

    func requirement(for role: String) -> TUFRoleKeys? { roles[role] }

    /// The key identities and threshold of `role`, to tell whether its keys were rotated.
    func keySet(of role: String) -> Set<String> {
        Set((roles[role]?.keyids ?? []).map { keys[$0]?.identity ?? "missing:" + $0 })
    }
}

/// `timestamp.json`'s `signed`.
struct TUFTimestamp: Sendable, Hashable {
    let common: TUFCommon
    let snapshot: TUFMetaFile

    init(_ envelope: TUFEnvelope) throws(TUFError) {
        common = try TUFCommon(envelope.signed)
        snapshot = try TUFMetaFile(envelope.signed.object("meta").object("snapshot.json"))
    }
}

/// `snapshot.json`'s `signed`.
struct TUFSnapshot: Sendable, Hashable {
    let common: TUFCommon
    /// By file name (`targets.json`, `<role>.json`).
    let meta: [String: TUFMetaFile]

    init(_ envelope: TUFEnvelope) throws(TUFError) {
        common = try TUFCommon(envelope.signed)
        let metaFields = try envelope.signed.object("meta")
        var meta: [String: TUFMetaFile] = [:]
        for name in metaFields.members.keys { meta[name] = try TUFMetaFile(metaFields.object(name)) }
        self.meta = meta
    }
}

/// A targets role's `signed` (top-level or delegated).
struct TUFTargets: TUFDelegator, Hashable {
    let common: TUFCommon
    /// By target path.
    let targets: [String: TUFTargetFile]
    let delegations: TUFDelegations?

    init(_ envelope: TUFEnvelope) throws(TUFError) {
        let signed = envelope.signed
        common = try TUFCommon(signed)
        let targetFields = try signed.object("targets")
        var targets: [String: TUFTargetFile] = [:]
        for path in targetFields.members.keys { targets[path] = try TUFTargetFile(path: path, fields: targetFields.object(path)) }
        self.targets = targets
        delegations = signed.members["delegations"] == nil ? nil : try TUFDelegations(signed.object("delegations"))
    }

    var keys: [String: TUFKey] { delegations?.keys ?? [:] }

    func requirement(for role: String) -> TUFRoleKeys? { delegations?.requirement(for: role) }
}

import Foundation

/// The metadata trusted so far in one update, and every check of the TUF client workflow
/// (specification 1.0.x, §5.3–§5.6) that needs no input or output, in the specification's order.
/// `TUFUpdater` feeds it files; it never reads or writes one.
///
/// Like python-tuf's `TrustedMetadataSet`, metadata is loaded in order (root, timestamp,
/// snapshot, targets, delegated targets), and an expired timestamp or snapshot (or a snapshot
/// whose version the timestamp does not name) is kept as *intermediate*: it still guards the
/// next version against rollback, but nothing after it can be loaded.
struct TUFTrustedSet: Sendable {
    /// The update's fixed reference time (§5.1): every expiry is judged against it.
    let now: Date
    private(set) var root: TUFRoot
    private(set) var rootBytes: Data
    private(set) var timestamp: TUFTimestamp?
    private(set) var snapshot: TUFSnapshot?
    private(set) var targets: [String: TUFTargets] = [:]
    /// Each loaded targets role's canonical bytes and signatures, and the delegators that
    /// vouched for it: a role reached again through another delegator is verified again against
    /// that delegator's keys (it must not inherit the first path's authority).
    private var targetsEnvelopes: [String: TUFEnvelope] = [:]
    private var targetsDelegators: [String: Set<String>] = [:]
    /// Limits by role, checked before any byte is parsed.
    let limits: TUFLimits

    /// Trusts `data` as the root: verified only by itself (§5.2; the trust anchor).
    init(root data: Data, now: Date, limits: TUFLimits) throws(TUFError) {
        let envelope = try TUFEnvelope(data, type: TUFRoleName.root, role: TUFRoleName.root, maxLength: limits.root)
        let root = try TUFRoot(envelope)
        try root.verify(envelope, as: TUFRoleName.root, delegator: "root v\(root.common.version) itself")
        self.root = root
        self.rootBytes = data
        self.now = now
        self.limits = limits
    }

    /// §5.3.3–§5.3.6: `data` as root N+1: signed by a threshold of the trusted root's root keys
    /// and of its own, and exactly version N+1. Its expiry is not checked (an intermediate root
    /// may have expired).
    mutating func updateRoot(_ data: Data) throws(TUFError) {
        precondition(timestamp == nil, "root is updated before timestamp")
        let envelope = try TUFEnvelope(data, type: TUFRoleName.root, role: TUFRoleName.root, maxLength: limits.root)
        let trusted = root.common.version
        try root.verify(envelope, as: TUFRoleName.root, delegator: "trusted root v\(trusted)")
        let new = try TUFRoot(envelope)
        try new.verify(envelope, as: TUFRoleName.root, delegator: "new root v\(new.common.version)")
        guard new.common.version == trusted + 1 else {
            throw TUFError(role: TUFRoleName.root, reason: .unexpectedVersion(expected: trusted + 1, found: new.common.version))
        }
        root = new
        rootBytes = data
    }

    /// §5.3.10: the final root must not have expired.
    func checkRootFresh() throws(TUFError) {
        guard !root.common.isExpired(at: now) else {
            throw TUFError(role: TUFRoleName.root, reason: .expired(expires: root.common.expires, now: now))
        }
    }

    /// §5.4.1–§5.4.3: `data` as the new timestamp. Returns false (keeping the trusted one) when
    /// it is the same version as the trusted one.
    @discardableResult
    mutating func updateTimestamp(_ data: Data) throws(TUFError) -> Bool {
        precondition(snapshot == nil, "timestamp is updated before snapshot")
        try checkRootFresh()
        let envelope = try TUFEnvelope(data, type: TUFRoleName.timestamp, role: TUFRoleName.timestamp, maxLength: limits.timestamp)
        try root.verify(envelope, as: TUFRoleName.timestamp, delegator: "root v\(root.common.version)")
        let new = try TUFTimestamp(envelope)
        if let trusted = timestamp {
            guard new.common.version >= trusted.common.version else {
                throw TUFError(role: TUFRoleName.timestamp, reason: .rollback(trusted: trusted.common.version, offered: new.common.version))
            }
            if new.common.version == trusted.common.version { return false }
            guard new.snapshot.version >= trusted.snapshot.version else {
                throw TUFError(role: TUFRoleName.snapshot, reason: .rollback(trusted: trusted.snapshot.version, offered: new.snapshot.version))
            }
        }
        // Kept even when expired, as the baseline a newer timestamp is checked against.
        timestamp = new
        try checkTimestampFresh()
        return true
    }

    /// §5.4.3: the trusted timestamp must not have expired.
    func checkTimestampFresh() throws(TUFError) {
        guard let timestamp else { throw TUFError(role: TUFRoleName.timestamp, reason: .unavailable("no trusted timestamp")) }
        guard !timestamp.common.isExpired(at: now) else {
            throw TUFError(role: TUFRoleName.timestamp, reason: .expired(expires: timestamp.common.expires, now: now))
        }
    }

    /// §5.5.1–§5.5.5: `data` as the new snapshot. `trusted` is for the locally stored copy,
    /// verified once already: its hashes are not checked against a newer timestamp, so it can
    /// guard the next snapshot against rollback.
    mutating func updateSnapshot(_ data: Data, trusted isLocal: Bool = false) throws(TUFError) {
        guard let timestamp else { preconditionFailure("snapshot is updated after timestamp") }
        precondition(targets.isEmpty, "snapshot is updated before targets")
        try checkTimestampFresh()
        if !isLocal { try timestamp.snapshot.verify(data, role: TUFRoleName.snapshot) }
        let envelope = try TUFEnvelope(data, type: TUFRoleName.snapshot, role: TUFRoleName.snapshot,
                                       maxLength: max(timestamp.snapshot.length ?? 0, limits.snapshot))
        try root.verify(envelope, as: TUFRoleName.snapshot, delegator: "root v\(root.common.version)")
        let new = try TUFSnapshot(envelope)
        if !isLocal, new.common.version != timestamp.snapshot.version {
            throw TUFError(role: TUFRoleName.snapshot, reason: .unexpectedVersion(expected: timestamp.snapshot.version, found: new.common.version))
        }
        if let trusted = snapshot {
            for (name, info) in trusted.meta.sorted(by: { $0.key < $1.key }) {
                guard let newInfo = new.meta[name] else { throw TUFError(role: TUFRoleName.snapshot, reason: .removed(name)) }
                guard newInfo.version >= info.version else {
                    throw TUFError(role: Self.roleName(ofFile: name), reason: .rollback(trusted: info.version, offered: newInfo.version))
                }
            }
        }
        snapshot = new
        try checkSnapshotFinal()
    }

    /// §5.5.3 and §5.5.5: the snapshot must be the version the timestamp names, and fresh.
    func checkSnapshotFinal() throws(TUFError) {
        guard let snapshot, let timestamp else { throw TUFError(role: TUFRoleName.snapshot, reason: .unavailable("no trusted snapshot")) }
        guard snapshot.common.version == timestamp.snapshot.version else {
            throw TUFError(role: TUFRoleName.snapshot, reason: .unexpectedVersion(expected: timestamp.snapshot.version, found: snapshot.common.version))
        }
        guard !snapshot.common.isExpired(at: now) else {
            throw TUFError(role: TUFRoleName.snapshot, reason: .expired(expires: snapshot.common.expires, now: now))
        }
    }

    /// §5.6 (and §5.7.4 for delegated roles): `data` as `role`, delegated by `delegator`
    /// (`root` for the top-level targets): hashes and length from the snapshot, the
    /// delegator's threshold, the snapshot's version, not expired.
    mutating func updateTargets(_ data: Data, role: String, delegator: String) throws(TUFError) -> TUFTargets {
        try checkSnapshotFinal()
        guard let info = snapshot?.meta["\(role).json"] else {
            throw TUFError(role: role, reason: .malformed("the snapshot does not list \(role).json"))
        }
        try info.verify(data, role: role)
        let envelope = try TUFEnvelope(data, type: TUFRoleName.targets, role: role, maxLength: max(info.length ?? 0, limits.targets))
        if delegator == TUFRoleName.root {
            try root.verify(envelope, as: role, delegator: "root v\(root.common.version)")
        } else {
            guard let parent = targets[delegator] else { preconditionFailure("a delegated role is loaded after its delegator") }
            try parent.verify(envelope, as: role, delegator: delegator)
        }
        let new = try TUFTargets(envelope)
        guard new.common.version == info.version else {
            throw TUFError(role: role, reason: .unexpectedVersion(expected: info.version, found: new.common.version))
        }
        guard !new.common.isExpired(at: now) else {
            throw TUFError(role: role, reason: .expired(expires: new.common.expires, now: now))
        }
        targets[role] = new
        targetsEnvelopes[role] = envelope
        targetsDelegators[role] = [delegator]
        return new
    }

    /// The loaded `role`, verified against `delegator` too if it was loaded through another.
    mutating func loadedTargets(_ role: String, delegator: String) throws(TUFError) -> TUFTargets? {
        guard let loaded = targets[role], let envelope = targetsEnvelopes[role] else { return nil }
        if targetsDelegators[role]?.contains(delegator) != true {
            guard let parent = targets[delegator] else { preconditionFailure("a delegated role is loaded after its delegator") }
            try parent.verify(envelope, as: role, delegator: delegator)
            targetsDelegators[role, default: []].insert(delegator)
        }
        return loaded
    }

    /// `targets` for `targets.json`, the role for `<role>.json`.
    static func roleName(ofFile name: String) -> String { name.hasSuffix(".json") ? String(name.dropLast(5)) : name }
}

/// The most bytes read of each kind of metadata (python-tuf's defaults), and the most root
/// rotations and delegated roles visited in one update.
public struct TUFLimits: Sendable, Hashable {
    /// A root (512,000 bytes).
    public var root = 512_000
    /// The timestamp (16,384 bytes).
    public var timestamp = 16_384
    /// The snapshot when the timestamp gives no length (2,000,000 bytes).
    public var snapshot = 2_000_000
    /// A targets role when the snapshot gives no length (5,000,000 bytes).
    public var targets = 5_000_000
    /// Root versions fetched in one update (256).
    public var rootRotations = 256
    /// Delegated roles visited in one search (32).
    public var delegations = 32

    /// The defaults.
    public init() {}
}

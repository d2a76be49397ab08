import Foundation

/// What a store's trusted TUF metadata says, read from disk without the network and without
/// changing a byte: each top-level role's version and expiry as the last refresh verified them
/// (`manashiki-sync status`, the metrics file). A role whose file is absent (no refresh got that
/// far) is left out; one whose file cannot be read as its role is named in `unreadable`.
///
/// The files were verified before they were written (`TUFUpdater`); this reader parses them
/// again but does not check their signatures, so it reports, it does not trust: the next
/// refresh verifies every file it reads.
///
/// ```swift
/// let state = TUFTrustedState(store: TUFMetadataStore(directory: layout.tufMetadataDirectory))
/// for role in state.expiringSoon(at: Date()) { print("\(role.name) expires \(role.expires)") }
/// ```
public struct TUFTrustedState: Sendable, Hashable {
    /// One top-level role as last verified.
    public struct Role: Sendable, Hashable {
        /// `root`, `timestamp`, `snapshot` or `targets`.
        public var name: String
        /// Its version.
        public var version: Int
        /// When it expires: after this, nothing new is installed until a refresh fetches a newer one.
        public var expires: Date

        /// A role.
        public init(name: String, version: Int, expires: Date) {
            self.name = name
            self.version = version
            self.expires = expires
        }

        /// Seconds from `now` until it expires (negative once expired).
        public func secondsLeft(at now: Date) -> TimeInterval { expires.timeIntervalSince(now) }

        /// Whether it has expired at `now` (expiry is inclusive, as the client judges it).
        public func isExpired(at now: Date) -> Bool { now >= expires }
    }

    /// The top-level role names, in the order the client updates them.
    public static let roleNames = ["root", "timestamp", "snapshot", "targets"]

    /// How close an expiry must be for `status` to warn: 12 hours. A timestamp valid for one
    /// day and re-signed every few hours (the usual setup, docs/signed-models.md) stays above
    /// it while the publisher keeps signing and the agent keeps syncing; below it, devices
    /// freeze (stop installing) within half a day unless a newer one is fetched.
    public static let expiryWarningInterval: TimeInterval = 12 * 3600

    /// The roles found, in `roleNames` order.
    public var roles: [Role]
    /// Roles whose file is there but cannot be read as that role (too large, malformed).
    public var unreadable: [String]

    /// A state of `roles` (for tests and previews).
    public init(roles: [Role], unreadable: [String] = []) {
        self.roles = roles
        self.unreadable = unreadable
    }

    /// Reads `store`'s `root.json`, `timestamp.json`, `snapshot.json` and `targets.json`.
    /// - Parameter limits: the most read of each file (the client's own limits).
    public init(store: TUFMetadataStore, limits: TUFLimits = TUFLimits()) {
        var roles: [Role] = [], unreadable: [String] = []
        let maxLength = [TUFRoleName.root: limits.root, TUFRoleName.timestamp: limits.timestamp,
                         TUFRoleName.snapshot: limits.snapshot, TUFRoleName.targets: limits.targets]
        for name in Self.roleNames {
            let limit = maxLength[name] ?? limits.targets
            let file = store.directory.appendingPathComponent(TUFMetadataStore.fileName(of: name))
            guard FileManager.default.fileExists(atPath: file.path) else { continue }
            guard let data = store.read(name, maxLength: limit),
                  let envelope = try? TUFEnvelope(data, type: name, role: name, maxLength: limit),
                  let common = try? TUFCommon(envelope.signed) else {
                unreadable.append(name)
                continue
            }
            roles.append(Role(name: name, version: common.version, expires: common.expires))
        }
        self.init(roles: roles, unreadable: unreadable)
    }

    /// Whether nothing was found (no refresh has stored metadata yet).
    public var isEmpty: Bool { roles.isEmpty && unreadable.isEmpty }

    /// The role named `name`, if found.
    public func role(_ name: String) -> Role? { roles.first { $0.name == name } }

    /// The roles that expire within `interval` of `now`, or have expired.
    public func expiringSoon(at now: Date, within interval: TimeInterval = expiryWarningInterval) -> [Role] {
        roles.filter { $0.secondsLeft(at: now) < interval }
    }
}

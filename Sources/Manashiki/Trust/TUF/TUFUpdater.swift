import Foundation

/// A TUF client (specification 1.0.x, §5): updates the trusted metadata of one repository from
/// a `TUFMetadataSource` into a `TUFMetadataStore`, then answers which target a path is, with
/// its length and hashes, after the pre-order depth-first search of delegations (§5.7).
///
/// ```swift
/// let updater = TUFUpdater(anchor: pinnedRoot, store: TUFMetadataStore(directory: dir),
///                          source: TUFHTTPSource(baseURL: metadataURL), now: Date())
/// let summary = try await updater.refresh()
/// let target = try await updater.target("models/tiny/1.2.0.bin")   // length, hashes
/// ```
///
/// One updater is one update cycle: its reference time is fixed at creation (§5.1), `refresh()`
/// runs at most once, and delegated roles are loaded as a search needs them. Every check is in
/// `TUFTrustedSet`; this type reads, fetches and persists.
public actor TUFUpdater {
    let anchor: Data?
    let store: TUFMetadataStore
    let source: any TUFMetadataSource
    let now: Date
    let limits: TUFLimits
    private var trusted: TUFTrustedSet?
    /// The one refresh of this cycle, shared by every caller.
    private var refreshing: Task<Result<TUFSummary, TUFError>, Never>?

    /// An update cycle.
    /// - Parameters:
    ///   - anchor: the root to start from (pinned in the manifest or shipped in the app); nil to
    ///     start from the store's `root.json`.
    ///   - store: where trusted metadata is kept.
    ///   - source: where new metadata is read.
    ///   - now: the reference time every expiry is judged against.
    ///   - limits: sizes and counts.
    public init(anchor: Data?, store: TUFMetadataStore, source: any TUFMetadataSource, now: Date, limits: TUFLimits = TUFLimits()) {
        self.anchor = anchor
        self.store = store
        self.source = source
        self.now = now
        self.limits = limits
    }

    /// Updates root, timestamp, snapshot and the top-level targets (§5.2–§5.6) and returns what
    /// is trusted. Runs once; later calls, concurrent ones included, return the first call's
    /// outcome (two models of one run evaluated at once share one refresh: run twice, the
    /// second's steps restarted from the anchor while the first's were suspended on a fetch).
    /// - Throws: `TUFError`.
    @discardableResult
    public func refresh() async throws(TUFError) -> TUFSummary {
        if refreshing == nil { refreshing = Task { await self.runRefresh() } }
        return try await refreshing!.value.get()
    }

    private func runRefresh() async -> Result<TUFSummary, TUFError> {
        do throws(TUFError) {
            try await loadRoot()
            try await loadTimestamp()
            try await loadSnapshot()
            _ = try await loadTargets(TUFRoleName.targets, delegator: TUFRoleName.root)
            return .success(try summary())
        } catch {
            return .failure(error)
        }
    }

    /// What is trusted now (after `refresh()`).
    public func summary() throws(TUFError) -> TUFSummary {
        guard let trusted, let timestamp = trusted.timestamp, let snapshot = trusted.snapshot,
              let targets = trusted.targets[TUFRoleName.targets] else {
            throw TUFError(role: TUFRoleName.timestamp, reason: .unavailable("the metadata has not been refreshed"))
        }
        return TUFSummary(rootVersion: trusted.root.common.version, rootExpires: trusted.root.common.expires,
                          timestampVersion: timestamp.common.version, timestampExpires: timestamp.common.expires,
                          snapshotVersion: snapshot.common.version, snapshotExpires: snapshot.common.expires,
                          targetsVersion: targets.common.version, targetsExpires: targets.common.expires,
                          consistentSnapshot: trusted.root.consistentSnapshot)
    }

    /// The target at `path` as the most trusted role that lists it says (§5.7), refreshing
    /// first if needed.
    /// - Throws: `TUFError` (`targetNotFound` when no role trusted for the path lists it).
    public func target(_ path: String) async throws(TUFError) -> TUFTargetFile {
        try await refresh()
        var toVisit: [(role: String, delegator: String)] = [(TUFRoleName.targets, TUFRoleName.root)]
        var visited = Set<String>()
        while visited.count <= limits.delegations, let (role, delegator) = toVisit.popLast() {
            // §5.7.1: a role already visited is skipped (a cycle).
            if visited.contains(role) { continue }
            let targets = try await loadTargets(role, delegator: delegator)
            if let found = targets.targets[path] { return found }
            visited.insert(role)
            var children: [(role: String, delegator: String)] = []
            for child in targets.delegations?.roles(for: path) ?? [] {
                children.append((child.name, role))
                // §5.7.5: a terminating delegation ends the search below it.
                if child.terminating { toVisit.removeAll(); break }
            }
            toVisit.append(contentsOf: children.reversed())
        }
        throw TUFError(role: path, reason: .targetNotFound)
    }

    /// The consistent-snapshot setting of the trusted root (targets are then fetched as
    /// `<hash>.<name>`).
    public var consistentSnapshot: Bool { trusted?.root.consistentSnapshot ?? false }

    // MARK: Steps

    /// §5.2–§5.3: the anchor, then each next root from the store or the source.
    private func loadRoot() async throws(TUFError) {
        let start = anchor ?? store.read(TUFRoleName.root, maxLength: limits.root)
        guard let start else { throw TUFError(role: TUFRoleName.root, reason: .unavailable("no trusted root in \(store.directory.path)")) }
        var set = try TUFTrustedSet(root: start, now: now, limits: limits)
        let anchorVersion = set.root.common.version
        if store.readRoot(version: anchorVersion, maxLength: limits.root) == nil { try persistRoot(version: anchorVersion, start) }
        defer { trusted = set }
        // The roots this store already verified (each checked again), then the repository's.
        var version = anchorVersion + 1
        while let local = store.readRoot(version: version, maxLength: limits.root), (try? set.updateRoot(local)) != nil { version += 1 }
        let before = set.root
        while version <= anchorVersion + limits.rootRotations,
              let data = try await source.fetch("\(version).root.json", maxLength: limits.root) {
            try set.updateRoot(data)
            try persistRoot(version: version, data)
            version += 1
        }
        if store.read(TUFRoleName.root, maxLength: limits.root) != set.rootBytes {
            try persistRoot(version: set.root.common.version, set.rootBytes)
        }
        try set.checkRootFresh()
        // §5.3.11: new timestamp or snapshot keys: forget both, so a fast-forwarded version
        // signed by the old keys cannot block the recovered repository.
        for role in [TUFRoleName.timestamp, TUFRoleName.snapshot] where before.keySet(of: role) != set.root.keySet(of: role) {
            store.remove(TUFRoleName.timestamp)
            store.remove(TUFRoleName.snapshot)
        }
    }

    /// §5.4: the stored timestamp (as the rollback baseline), then the repository's.
    private func loadTimestamp() async throws(TUFError) {
        guard var set = trusted else { return }
        defer { trusted = set }
        if let local = store.read(TUFRoleName.timestamp, maxLength: limits.timestamp) { _ = try? set.updateTimestamp(local) }
        guard let data = try await source.fetch("timestamp.json", maxLength: limits.timestamp) else {
            throw TUFError(role: TUFRoleName.timestamp, reason: .unavailable("the repository has no timestamp.json"))
        }
        if try set.updateTimestamp(data) { try persist(TUFRoleName.timestamp, data) }
    }

    /// §5.5: the stored snapshot if it is still the one the timestamp names, else the
    /// repository's.
    private func loadSnapshot() async throws(TUFError) {
        guard var set = trusted, let info = set.timestamp?.snapshot else { return }
        defer { trusted = set }
        let maxLength = info.length ?? limits.snapshot
        // The stored copy may be an older, longer version: bounded by the role's limit.
        if let local = store.read(TUFRoleName.snapshot, maxLength: max(maxLength, limits.snapshot)), (try? set.updateSnapshot(local, trusted: true)) != nil { return }
        let name = set.root.consistentSnapshot ? "\(info.version).snapshot.json" : "snapshot.json"
        guard let data = try await source.fetch(name, maxLength: maxLength) else {
            throw TUFError(role: TUFRoleName.snapshot, reason: .unavailable("the repository has no \(name)"))
        }
        try set.updateSnapshot(data)
        try persist(TUFRoleName.snapshot, data)
    }

    /// §5.6 / §5.7.4: `role` from the store if it is still the version the snapshot names,
    /// else from the repository. The trusted set is never copied across a fetch: searches for
    /// two paths run at once, and a copy written back after a suspension would drop what the
    /// other loaded meanwhile.
    private func loadTargets(_ role: String, delegator: String) async throws(TUFError) -> TUFTargets {
        let name: String
        let maxLength: Int
        do {
            guard var set = trusted else { throw TUFError(role: role, reason: .unavailable("no trusted root")) }
            defer { trusted = set }
            if let loaded = try set.loadedTargets(role, delegator: delegator) { return loaded }
            guard let info = set.snapshot?.meta["\(role).json"] else {
                throw TUFError(role: role, reason: .malformed("\(delegator) delegates \(role), which the snapshot does not list"))
            }
            maxLength = info.length ?? limits.targets
            if let local = store.read(role, maxLength: max(maxLength, limits.targets)), let loaded = try? set.updateTargets(local, role: role, delegator: delegator) {
                return loaded
            }
            let file = TUFMetadataStore.percentEncoded(role) + ".json"
            name = set.root.consistentSnapshot ? "\(info.version).\(file)" : file
        }
        guard let data = try await source.fetch(name, maxLength: maxLength) else {
            throw TUFError(role: role, reason: .unavailable("the repository has no \(name)"))
        }
        guard var set = trusted else { throw TUFError(role: role, reason: .unavailable("no trusted root")) }
        defer { trusted = set }
        // Loaded by a search that ran while this one fetched: that copy is the trusted one.
        if let loaded = try set.loadedTargets(role, delegator: delegator) { return loaded }
        let loaded = try set.updateTargets(data, role: role, delegator: delegator)
        try persist(role, data)
        return loaded
    }

    private func persist(_ role: String, _ data: Data) throws(TUFError) {
        do { try store.write(role, data) } catch {
            throw TUFError(role: role, reason: .unavailable("could not store it: \(error.localizedDescription)"))
        }
    }

    private func persistRoot(version: Int, _ data: Data) throws(TUFError) {
        do { try store.writeRoot(version: version, data) } catch {
            throw TUFError(role: TUFRoleName.root, reason: .unavailable("could not store it: \(error.localizedDescription)"))
        }
    }
}

/// What an update trusts: each top-level role's version and expiry.
public struct TUFSummary: Sendable, Hashable, Codable {
    /// The trusted root's version.
    public var rootVersion: Int
    /// When the trusted root expires.
    public var rootExpires: Date
    /// The timestamp's version.
    public var timestampVersion: Int
    /// When the timestamp expires: the date after which nothing new installs unless the
    /// publisher re-signs (the one to alert on).
    public var timestampExpires: Date
    /// The snapshot's version.
    public var snapshotVersion: Int
    /// When the snapshot expires.
    public var snapshotExpires: Date
    /// The top-level targets' version.
    public var targetsVersion: Int
    /// When the top-level targets expire.
    public var targetsExpires: Date
    /// Whether the repository uses consistent snapshots.
    public var consistentSnapshot: Bool

    /// The earliest expiry of the four roles: when updates stop.
    public var earliestExpiry: Date { [rootExpires, timestampExpires, snapshotExpires, targetsExpires].min() ?? timestampExpires }
}

import Foundation

/// One metadata file named as a TUF client fetches it from a repository (`3.root.json`,
/// `timestamp.json`, `snapshot.json`, `7.snapshot.json`, `4.targets.json`).
public struct TUFRepositoryFile: Sendable, Hashable {
    /// The file name.
    public var name: String
    /// Its bytes, exactly as the store holds them (signatures cover them).
    public var data: Data
}

/// The trusted metadata of a store laid out as a repository that `TUFUpdater` can update from
/// (`TUFDirectorySource`): what `export` copies into a bundle's `tuf/` folder so an offline
/// machine verifies against its own pinned root.
public struct TUFRepositoryCopy: Sendable, Hashable {
    /// The files, in the order to write them: roots, then targets roles, the snapshot, and the
    /// timestamp last (the file a reader starts from).
    public var files: [TUFRepositoryFile]
    /// The root versions copied (from the first this store trusted up to the current one).
    public var rootVersions: [Int]
    /// The timestamp's version.
    public var timestampVersion: Int
    /// When the timestamp expires: after it, a machine that only has this copy installs nothing
    /// new (the date to refresh an air-gapped image by).
    public var timestampExpires: Date

    /// `timestampExpires` as TUF writes it (`2027-01-31T00:00:00Z`).
    public var timestampExpiresText: String { TUFTime.format(timestampExpires) }
}

extension TUFMetadataStore {
    /// The store's trusted metadata as a repository: every root version in `roots/` as
    /// `N.root.json`; the timestamp as `timestamp.json`; the snapshot and every stored targets
    /// role (top-level and delegated) under both names a client may ask for, `<role>.json` and
    /// `<version>.<role>.json` (consistent snapshots), so the copy serves either setting. No
    /// `root.json`: a reader starts from its own pinned root, never from a root the copy carries.
    ///
    /// Nothing is verified here (the store verified each file before it kept it, and the
    /// reader verifies everything again against its pinned root); a stored targets file that
    /// cannot be read as targets metadata is left out.
    /// - Returns: nil when the store trusts no timestamp yet (no update has completed).
    public func repositoryCopy(limits: TUFLimits = TUFLimits()) -> TUFRepositoryCopy? {
        guard let timestampData = read(TUFRoleName.timestamp, maxLength: limits.timestamp),
              let timestamp = try? TUFCommon(TUFEnvelope(timestampData, type: "timestamp", role: TUFRoleName.timestamp, maxLength: limits.timestamp).signed)
        else { return nil }
        let roots = rootVersions()
        var files: [TUFRepositoryFile] = roots.compactMap { version in
            readRoot(version: version, maxLength: limits.root).map { TUFRepositoryFile(name: "\(version).root.json", data: $0) }
        }
        for name in targetsFileNames() {
            files += versioned(name, type: "targets", maxLength: limits.targets)
        }
        files += versioned(Self.fileName(of: TUFRoleName.snapshot), type: "snapshot", maxLength: limits.snapshot)
        files.append(TUFRepositoryFile(name: Self.fileName(of: TUFRoleName.timestamp), data: timestampData))
        return TUFRepositoryCopy(files: files, rootVersions: roots, timestampVersion: timestamp.version, timestampExpires: timestamp.expires)
    }

    /// The stored files that are not root, timestamp or snapshot: the targets roles, sorted.
    private func targetsFileNames() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let others: Set<String> = [TUFRoleName.root, TUFRoleName.timestamp, TUFRoleName.snapshot].reduce(into: []) { $0.insert(Self.fileName(of: $1)) }
        return names.filter { $0.hasSuffix(".json") && !others.contains($0) && !$0.hasPrefix(".") }.sorted()
    }

    /// The stored file `name` under its plain and its versioned name; none when it cannot be
    /// read as `type` metadata.
    private func versioned(_ name: String, type: String, maxLength: Int) -> [TUFRepositoryFile] {
        guard let data = Self.readBounded(directory.appendingPathComponent(name), maxLength: maxLength),
              let common = try? TUFCommon(TUFEnvelope(data, type: type, role: String(name.dropLast(5)), maxLength: maxLength).signed)
        else { return [] }
        return [TUFRepositoryFile(name: name, data: data), TUFRepositoryFile(name: "\(common.version).\(name)", data: data)]
    }
}

import Foundation
import Manashiki

/// Signed metadata travels with its models (#35): with `trust.tuf`, a bundle carries the chain
/// the exporting store trusts (`TUFMetadataStore.repositoryCopy`) in `<bundle>/tuf/`, laid out
/// as the repository a TUF client reads (`N.root.json` from the store's first trusted root up,
/// `timestamp.json`, `snapshot.json` and `targets.json`, delegated roles, each also as
/// `<version>.<name>`). An offline machine (`sync --offline`) runs the TUF client's normal
/// update from that folder against the root pinned in its own manifest, with its own rollback,
/// expiry and high-water rules. Served over HTTP, the bundle is a mirror carrying the same files.
///
/// Written after the blobs and before the index, each file durably (temporary file, flush,
/// rename, flush the directory), roots first and the timestamp (the file a reader starts from)
/// last; files of an earlier export that this copy no longer names are removed, except roots
/// (every root stays valid as a step in the chain).
extension BundleExporter {
    /// The store's signed metadata could not go into the bundle.
    public struct MetadataError: Error, LocalizedError, Sendable, Hashable, CustomStringConvertible {
        /// What went wrong and what to do.
        public var message: String
        /// The message.
        public var description: String { message }
        /// The message.
        public var errorDescription: String? { message }

        /// The store has no trusted metadata (`trust.tuf` is configured but no sync completed an
        /// update): an offline machine could verify nothing from the bundle.
        public static func noTrustedMetadata(_ store: StoreLayout) -> MetadataError {
            MetadataError(message: "\(store.tufMetadataDirectory.path) holds no trusted signed metadata (trust.tuf is configured), so an offline machine could verify nothing from this bundle: run \(Remedy.sync) online on this store first, then export again")
        }

        /// The store's metadata expired: a bundle carrying it installs nothing anywhere.
        public static func expired(_ store: StoreLayout, _ copy: TUFRepositoryCopy) -> MetadataError {
            MetadataError(message: "the signed metadata this store trusts expired at \(copy.timestampExpiresText) (its timestamp v\(copy.timestampVersion)), so an offline machine would refuse every install from this bundle: run \(Remedy.sync) online on this store to refresh it (or have the publisher re-sign), then export again")
        }
    }

    /// The metadata to copy for `store` (nil when `required` is false: no `trust.tuf`).
    /// - Throws: `MetadataError` when `required` and the store trusts no metadata, or only
    ///   metadata whose timestamp expired before `now`.
    public static func signedMetadata(of store: StoreLayout, required: Bool, now: Date = Date()) throws -> TUFRepositoryCopy? {
        guard required else { return nil }
        guard let copy = TUFMetadataStore(directory: store.tufMetadataDirectory).repositoryCopy() else { throw MetadataError.noTrustedMetadata(store) }
        guard copy.timestampExpires > now else { throw MetadataError.expired(store, copy) }
        return copy
    }

    /// Writes `copy` into `<bundle>/tuf/` (see the type's comment).
    /// - Throws: `ArtifactFileError` naming the file that could not be written.
    static func writeMetadata(_ copy: TUFRepositoryCopy, into bundle: BundleLayout, root: DirectoryHandle) throws {
        let folder: DirectoryHandle
        do { folder = try root.directory(BundleLayout.tufFolderName, creating: true) } catch {
            throw ArtifactFileError(location: bundle.tufDirectory.path, message: "cannot be created (\(SyncFailure(error).message))",
                                    hint: "check free space and permissions on the bundle's volume")
        }
        for file in copy.files {
            do { try folder.replace(file.name, with: file.data) } catch {
                throw ArtifactFileError(location: folder.displayPath(file.name), message: "cannot be written (\(SyncFailure(error).message))",
                                        hint: "check free space and permissions on the bundle's volume")
            }
        }
        let names = Set(copy.files.map(\.name))
        for name in folder.names() where name.hasSuffix(".json") && !name.hasSuffix(".root.json") && !names.contains(name) {
            folder.remove(name)
        }
    }
}

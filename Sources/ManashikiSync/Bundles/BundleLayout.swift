import Foundation

/// The paths of a content-addressed bundle (a directory, or the same tree served over HTTP):
///
/// ```text
/// <bundle>/index.json                 what the bundle holds (BundleIndex, versioned)
/// <bundle>/blobs/sha256/<hex>         each artifact, named by its SHA-256
/// <bundle>/tuf/                       with `trust.tuf`: the signed metadata chain (every root
///                                     from the pinned one up, timestamp, snapshot, targets,
///                                     delegations) an offline machine verifies against
/// ```
/// Any plain file server can serve it: every byte is verified against the digest on the way in.
public struct BundleLayout: Sendable, Hashable {
    /// The bundle directory.
    public let directory: URL

    /// A layout rooted at `directory`.
    public init(directory: URL) { self.directory = directory.standardizedFileURL }

    /// `<bundle>/index.json`.
    public var indexFile: URL { directory.appendingPathComponent(BundleLayout.indexName) }
    /// `<bundle>/blobs/sha256`.
    public var blobDirectory: URL { directory.appendingPathComponent("blobs/sha256", isDirectory: true) }
    /// `<bundle>/blobs/sha256/<hex>`.
    public func blob(_ sha256: String) -> URL { blobDirectory.appendingPathComponent(sha256) }

    /// `<bundle>/tuf`.
    public var tufDirectory: URL { directory.appendingPathComponent(BundleLayout.tufFolderName, isDirectory: true) }

    /// `tuf`: the folder of the signed metadata chain.
    public static let tufFolderName = "tuf"
    /// `index.json`.
    public static let indexName = "index.json"
    /// The path of a blob relative to the bundle's root (also its path under a mirror URL).
    public static func blobPath(_ sha256: String) -> String { "blobs/sha256/\(sha256)" }
}

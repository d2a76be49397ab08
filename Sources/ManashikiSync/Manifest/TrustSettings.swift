import Foundation
import ManashikiCore
import Manashiki

/// The manifest's `trust` section: what must vouch for a model before it is installed,
/// replaced or kept as verified. Each member is one mechanism; every one configured is required
/// (`SyncRun.makeTrust` builds one `ArtifactTrustChain` of them, TUF first).
///
/// ```json
/// "trust": {"tuf": {"metadataURL": "https://models.example.com/tuf/metadata/",
///                   "root": {"file": "/etc/manashiki/root.json"}}}
/// ```
public struct TrustSettings: Sendable, Hashable {
    /// `trust.tuf`: signed TUF metadata (docs/signed-models.md); nil when not configured.
    public var tuf: TUFSettings?
    /// `trust.modelSigning`: publisher signatures; nil when the section is absent.
    public var modelSigning: ModelSigningSettings?

    /// Creates settings.
    public init(tuf: TUFSettings? = nil, modelSigning: ModelSigningSettings? = nil) {
        self.tuf = tuf
        self.modelSigning = modelSigning
    }

    /// Whether any trust is configured.
    public var isConfigured: Bool { tuf != nil || modelSigning != nil }
}

/// `trust.tuf`: where the repository's metadata is, and the root it starts from.
public struct TUFSettings: Sendable, Hashable {
    /// Where the pinned root comes from.
    public enum RootSource: Sendable, Hashable {
        /// `{"file": PATH}`: a root.json file (resolved like the manifest's other paths).
        case file(String)
        /// The root metadata written inline (`{"signed": …, "signatures": […]}`).
        case inline(JSONValue)
    }

    /// The metadata URL (`…/metadata/`): https, or http on loopback.
    public var metadataURL: URL
    /// The pinned root.
    public var root: RootSource

    /// Settings.
    public init(metadataURL: URL, root: RootSource) {
        self.metadataURL = metadataURL
        self.root = root
    }
}

extension Manifest {
    /// The pinned TUF root's bytes (`trust.tuf.root`), read from its file or written from the
    /// inline JSON; nil when `trust.tuf` is not configured.
    /// - Throws: `ManifestError` naming `trust.tuf.root.file` when the file cannot be read.
    public func tufRootData() throws -> Data? {
        guard let tuf = trust.tuf else { return nil }
        switch tuf.root {
        case .inline(let value):
            return Data((try? value.canonicalBytes()) ?? [])
        case .file(let path):
            let url = PathResolver.resolve(path, against: baseDirectory)
            do { return try Data(contentsOf: url) } catch {
                throw ManifestError(problems: [ManifestProblem(path: "trust.tuf.root.file", message: "cannot read \(url.path): \(error.localizedDescription)",
                                                               hint: "give the path of the repository's root.json, as its publisher distributes it")])
            }
        }
    }
}

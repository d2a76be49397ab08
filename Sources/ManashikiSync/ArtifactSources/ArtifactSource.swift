import Foundation

/// A place that may hold copies of artifacts, tried before the registry: a bundle directory
/// (a USB disk, an image layer, a network mount) or a mirror URL serving a bundle over HTTP
/// (nginx, an object store, a CDN). Every byte from a source is verified against the digest,
/// so a source needs no trust for integrity; it never receives `X-API-Key` or `Authorization`.
///
/// ```json
/// "sources": [{"bundle": "/media/usb/models"},
///             {"mirror": "https://models-cache.example.internal/bundle"},
///             {"mirror": "http://10.0.0.5/bundle", "allowHTTP": true, "private": true}],
/// "fallback": "registry"
/// ```
public struct ArtifactSource: Sendable, Hashable, CustomStringConvertible {
    /// Where the copies are.
    public enum Kind: Sendable, Hashable {
        /// A bundle directory, as written (absolute, `~/…` or relative to the manifest).
        case bundle(String)
        /// The base URL of a bundle served over HTTP(S); blobs are at `<base>/blobs/sha256/<hex>`.
        case mirror(URL)
        /// A repository (and tag) of an OCI registry holding an artifact `export oci://` pushed
        /// (`OCISourceClient`).
        case oci(OCIReference)
        /// A bucket and prefix in S3 or an S3-compatible store holding a bundle (what `export
        /// s3://…` writes), with its endpoint, region and credentials' source.
        case s3(S3Settings)
    }

    /// The bundle or mirror.
    public var kind: Kind
    /// Whether private models may come from this source (off by default: a private model is
    /// fetched from a source only when the operator says the source is meant to serve them).
    public var servesPrivate: Bool
    /// For a mirror or an OCI registry: plain http to a host other than this machine was explicitly allowed.
    public var allowsPlainHTTP: Bool
    /// For an OCI registry: where its credentials come from (nil: the container tools' auth files).
    public var credentials: OCICredentialSource?

    /// Creates a source.
    public init(_ kind: Kind, servesPrivate: Bool = false, allowsPlainHTTP: Bool = false) {
        self.kind = kind
        self.servesPrivate = servesPrivate
        self.allowsPlainHTTP = allowsPlainHTTP
    }

    /// A source given on the command line (`sync --from DIR|URL|oci://HOST/REPO:TAG|s3://BUCKET/PREFIX/`):
    /// `oci://` (or `oci+http://` to this machine) is an OCI registry, `s3://` a bucket (endpoint,
    /// region and credentials from the environment), other text with `://` a mirror
    /// (https, or http to this machine), anything else a bundle directory resolved against `base`.
    /// - Throws: `ArtifactFileError` naming the value (credentials never shown) and the fix.
    public init(commandLine text: String, relativeTo base: URL) throws {
        switch ArtifactSourceParser.commandLine(text) {
        case .success(let source):
            if case .bundle(let path) = source.kind {
                self.init(.bundle(PathResolver.resolve(path, against: base).path))
            } else {
                self = source
            }
        case .failure(let problem):
            throw ArtifactFileError(location: ArtifactSourceParser.redacted(text), message: problem.message, hint: problem.hint)
        }
    }

    /// Whether it is reached over the network.
    public var isNetwork: Bool { if case .bundle = kind { return false } else { return true } }

    /// Whether an `--offline` run uses it: bundle directories, and OCI registries (a tag is an
    /// exact artifact set, like a bundle; an air-gapped site's registry is where it lives).
    public var servesOffline: Bool {
        switch kind {
        case .mirror, .s3: return false
        case .bundle, .oci: return true
        }
    }

    /// `bundle /media/usb/models` or `mirror https://cache.example/bundle` (never credentials:
    /// URLs with them are refused).
    public var description: String {
        switch kind {
        case .bundle(let path): return "bundle \(path)"
        case .mirror(let url): return "mirror \(url.absoluteString)"
        case .oci(let reference): return reference.description
        case .s3(let settings): return "bucket \(settings.description)"
        }
    }

    /// The URL of a blob on a mirror.
    public static func blobURL(_ base: URL, _ sha256: String) -> URL { url(base, BundleLayout.blobPath(sha256)) }

    /// The URL of a mirror's `index.json`.
    public static func indexURL(_ base: URL) -> URL { url(base, BundleLayout.indexName) }

    private static func url(_ base: URL, _ path: String) -> URL {
        var text = base.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        return URL(string: text + "/" + path)!
    }
}

/// What happens when no source has an artifact.
public enum SourceFallback: String, Sendable, Hashable, CaseIterable {
    /// Download from the registry (the default).
    case registry
    /// Do not: the model fails, naming each source tried.
    case none
}

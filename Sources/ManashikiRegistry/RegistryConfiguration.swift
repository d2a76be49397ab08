import Foundation

/// How a development registry listens and behaves.
///
/// ```swift
/// var configuration = RegistryConfiguration()
/// configuration.urlTTL = 60
/// let registry = try DevelopmentRegistry.start(catalog: catalog, configuration: configuration)
/// ```
public struct RegistryConfiguration: Sendable {
    /// The IPv4 address to bind (default `127.0.0.1`). Anything but loopback requires
    /// `allowRemote`.
    public var host: String
    /// The API origin's port; 0 picks an ephemeral one.
    public var apiPort: UInt16
    /// The storage (CDN stand-in) origin's port; 0 picks an ephemeral one.
    public var storagePort: UInt16
    /// The host name put in advertised URLs; default: `host` (or `127.0.0.1` when binding
    /// `0.0.0.0`).
    public var advertisedHost: String?
    /// Allows binding a non-loopback address.
    public var allowRemote: Bool
    /// How long signed download URLs stay valid, in seconds (`expiresIn`).
    public var urlTTL: Int
    /// How long upload URLs stay valid, in seconds.
    public var uploadURLTTL: Int
    /// When set, `/_admin/*` requests must carry `X-Admin-Token: <token>`; without it they are
    /// accepted from loopback peers only.
    public var adminToken: String?
    /// Where generated artifacts are cached (default: `$TMPDIR/manashiki-registry-cache`).
    public var cacheDirectory: URL?
    /// The HMAC key for signed URLs (default: random per start).
    public var signingSecret: String?
    /// The largest request head accepted (bigger heads get `431`).
    public var maxHeaderBytes: Int
    /// The largest JSON request body accepted on the API origin.
    public var maxJSONBodyBytes: Int
    /// How many requests the log keeps.
    public var requestLogLimit: Int
    /// Where the TUF repository's keys and root are (`serve --tuf DIR`; generated when
    /// absent): with it, signed metadata for every served version is at
    /// `<api>/tuf/metadata/`, and `DIR/root.json` is the root a manifest's `trust.tuf` pins.
    /// nil (the default): no TUF metadata.
    public var tufDirectory: URL?

    /// The defaults: ephemeral ports on 127.0.0.1, 300 s download URLs, 900 s upload URLs.
    public init(host: String = "127.0.0.1", apiPort: UInt16 = 0, storagePort: UInt16 = 0, advertisedHost: String? = nil,
                allowRemote: Bool = false, urlTTL: Int = 300, uploadURLTTL: Int = 900, adminToken: String? = nil,
                cacheDirectory: URL? = nil, signingSecret: String? = nil, maxHeaderBytes: Int = 16 << 10,
                maxJSONBodyBytes: Int = 1 << 20, requestLogLimit: Int = 100_000) {
        self.host = host
        self.apiPort = apiPort
        self.storagePort = storagePort
        self.advertisedHost = advertisedHost
        self.allowRemote = allowRemote
        self.urlTTL = urlTTL
        self.uploadURLTTL = uploadURLTTL
        self.adminToken = adminToken
        self.cacheDirectory = cacheDirectory
        self.signingSecret = signingSecret
        self.maxHeaderBytes = maxHeaderBytes
        self.maxJSONBodyBytes = maxJSONBodyBytes
        self.requestLogLimit = requestLogLimit
    }
}

/// Why a registry could not start.
public struct RegistryStartError: Error, CustomStringConvertible, LocalizedError, Sendable {
    /// What went wrong, with the fix.
    public let description: String

    /// Creates an error.
    public init(_ description: String) { self.description = description }

    /// Same as `description`.
    public var errorDescription: String? { description }
}

import Foundation
import ManashikiCore

/// The Manashiki registry client.
///
/// A `Sendable` struct: create one and share it between tasks.
///
/// ```swift
/// import Manashiki
///
/// // An invalid key throws APIError.invalidAPIKey before any network traffic.
/// let client = try ManashikiClient(apiKey: "mk_pub_acme_...")
/// let entries = try await client.listModels()
/// let model = try await client.downloadModel("whisper-medical-ja-fp16") { written, total in
///     if let total { print("\(written) / \(total) bytes") }
/// }
/// ```
public struct ManashikiClient: Sendable, CustomStringConvertible, CustomReflectable {
    /// The production registry.
    public static let defaultBaseURL = URL(string: "https://models.manashiki.com")!

    /// The validated API key (its `description` is redacted).
    public let apiKey: APIKey
    /// The registry's origin (and optional path prefix).
    public let baseURL: URL
    /// The transport every request goes through.
    public let transport: any HTTPTransport
    /// Where models are installed as `<modelId>.bin`. Created on first download.
    public let storageDirectory: URL
    /// How long and how slowly the registry may send an API answer (the catalog, a record, a
    /// download's resolution): `DocumentLimits.default` unless set. A mirror's `index.json`
    /// (`fetchFromMirror`) gets the same limits.
    public var documentLimits: DocumentLimits = .default

    /// The key's tier: `.client` keys can list and download; `.server` keys can also issue
    /// sessions and upload.
    public var keyTier: APIKey.Tier { apiKey.tier }
    /// The organisation slug from the key (`mk_pub_acme_…` → `acme`); nil for legacy keys.
    public var organization: String? { apiKey.organization }

    /// Creates a client. Validates the key locally; nothing is sent.
    ///
    /// - Parameters:
    ///   - apiKey: an `mk_pub_`, `mk_live_`, `mk_svc_` or `sk_live_` key. Only `mk_pub_` keys may
    ///     ship inside an app: created inside an app bundle with a server key, the client logs
    ///     `APIKey.appEmbeddingWarning` once (see `Platform/AppBundle.swift`).
    ///   - baseURL: the registry origin; `http` is accepted only for loopback hosts.
    ///   - transport: how requests are sent: `DefaultTransport()` picks the platform's best
    ///     (URLSession on Apple platforms, libcurl on Linux). The SDK guide shows
    ///     `URLSessionTransport()` here; passing it works everywhere (on Linux it is
    ///     FoundationNetworking, which cannot pause a download). Inject a mock in tests.
    ///   - storageDirectory: where models are stored; defaults to
    ///     `Application Support/ManashikiModels` (a temporary directory if that is unavailable).
    /// - Throws: `APIError.invalidAPIKey` for a malformed key; `APIError.refusedURL` for a base
    ///   URL that is not https (or loopback http).
    public init(
        apiKey: String,
        baseURL: URL = URL(string: "https://models.manashiki.com")!,
        transport: any HTTPTransport = DefaultTransport(),
        storageDirectory: URL? = nil
    ) throws {
        self.apiKey = try APIKey(apiKey)
        if let reason = URLPolicy.refusal(for: baseURL) {
            throw APIError.refusedURL("the registry base URL is not allowed (\(reason))")
        }
        self.baseURL = baseURL
        self.transport = transport
        self.storageDirectory = storageDirectory ?? ManashikiClient.defaultStorageDirectory
        Self.warnIfEmbedded(self.apiKey, inApp: AppBundle.isApp, warn: AppBundle.warn)
    }

    /// Kinds of server key already warned about in this process.
    private static let warnedKinds = Locked<Set<APIKey.Kind>>([])

    /// Warns (once per process and key kind) when a server-tier key is used inside an app:
    /// only `mk_pub_` keys may ship in an app binary (SDK guide §2). A warning, not an error:
    /// an internal tool may knowingly do it. Returns whether it warned.
    @discardableResult
    package static func warnIfEmbedded(_ key: APIKey, inApp: Bool, warn: (String) -> Void) -> Bool {
        guard inApp, let warning = key.appEmbeddingWarning else { return false }
        let first = warnedKinds.withLock { $0.insert(key.kind).inserted }
        if first { warn(warning) }
        return first
    }

    /// `Application Support/ManashikiModels` in the user domain (on Linux, under
    /// `$XDG_DATA_HOME` or `~/.local/share`; on tvOS `Caches/ManashikiModels`, the only local
    /// storage tvOS keeps, which the system may purge), or a folder in the temporary directory
    /// when none is available. See `Platform/DefaultStore.swift`.
    public static var defaultStorageDirectory: URL {
        if let base = DefaultStore.baseDirectory {
            return base.appendingPathComponent("ManashikiModels", isDirectory: true)
        }
        return FileManager.default.temporaryDirectory.appendingPathComponent("ManashikiModels", isDirectory: true)
    }

    /// The `User-Agent` sent with every request.
    public static let userAgent = "manashiki-swift/\(ManashikiSDK.version)"

    /// Redacted: shows the base URL and the key's kind, never the key.
    public var description: String { "ManashikiClient(baseURL: \(baseURL.absoluteString), key: \(apiKey))" }
    /// Mirror without the key's secret.
    public var customMirror: Mirror {
        Mirror(self, children: ["baseURL": baseURL, "apiKey": apiKey, "storageDirectory": storageDirectory], displayStyle: .struct)
    }
}

/// Facts about this SDK. (Not named `Manashiki`: a type with the module's name would shadow the
/// module, so `Manashiki.X` could no longer name the module's own types.)
public enum ManashikiSDK {
    /// The SDK's version, sent in `User-Agent`.
    public static let version = "0.1.0"
}

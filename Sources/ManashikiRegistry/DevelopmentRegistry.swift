import Foundation
import ManashikiCore

/// A local registry speaking CONTRACT.md over real HTTP: an API origin and a storage origin
/// (the CDN stand-in) on two ports, with fault injection and a request log.
///
/// ```swift
/// var catalog = RegistryCatalog()
/// catalog.keys = [RegistryKey(secret: "mk_pub_acme_0123456789abcdefghij")]
/// catalog.add(model: RegistryModel(modelId: "tiny", version: "1.0.0", artifact: .generated(size: 1 << 16, seed: 7)))
/// let registry = try DevelopmentRegistry.start(catalog: catalog)
/// defer { registry.stop() }
/// registry.setFault(.status(503, count: 2), modelId: "tiny", endpoint: .storage)
/// ```
public final class DevelopmentRegistry: Sendable {
    /// The API origin, e.g. `http://127.0.0.1:54321`.
    public let apiBaseURL: URL
    /// The storage origin (the CDN stand-in) that signed download and upload URLs point to.
    public let storageBaseURL: URL
    /// The configuration it was started with.
    public let configuration: RegistryConfiguration

    private let state: RegistryState
    private let apiServer: HTTPServer
    private let storageServer: HTTPServer

    private init(state: RegistryState, api: HTTPServer, storage: HTTPServer, apiBaseURL: URL, storageBaseURL: URL) {
        self.state = state
        self.apiServer = api
        self.storageServer = storage
        self.apiBaseURL = apiBaseURL
        self.storageBaseURL = storageBaseURL
        self.configuration = state.configuration
    }

    deinit { stop() }

    /// Starts a registry serving `catalog` (by default on ephemeral ports of 127.0.0.1).
    /// Generated artifacts are materialised (or found in the cache) before it returns.
    /// - Throws: `RegistryStartError` for a non-loopback host without `allowRemote` or an
    ///   invalid model id; file-system and socket errors.
    public static func start(catalog: RegistryCatalog, configuration: RegistryConfiguration = .init()) throws -> DevelopmentRegistry {
        guard configuration.allowRemote || LoopbackHost.matches(configuration.host) else {
            throw RegistryStartError("refusing to listen on \(configuration.host), which is not a loopback address: pass --allow-remote (RegistryConfiguration.allowRemote) to expose the registry to the network")
        }
        let tuf = try configuration.tufDirectory.map { try RegistryTUF(directory: $0) }
        let store = try ArtifactStore(cacheDirectory: configuration.cacheDirectory)
        let state = RegistryState(configuration: configuration, store: store, tuf: tuf)
        do {
            try state.load(catalog)
        } catch {
            store.removeWorkDirectory()
            throw error
        }
        let api: HTTPServer
        let storage: HTTPServer
        do {
            api = try HTTPServer(host: configuration.host, port: configuration.apiPort,
                                 maxHeadBytes: configuration.maxHeaderBytes, handler: APIOrigin(state: state))
            do {
                storage = try HTTPServer(host: configuration.host, port: configuration.storagePort,
                                         maxHeadBytes: configuration.maxHeaderBytes, handler: StorageOrigin(state: state))
            } catch {
                api.stop()
                throw error
            }
        } catch {
            store.removeWorkDirectory()
            throw error
        }
        let advertised = configuration.advertisedHost ?? (configuration.host == "0.0.0.0" ? "127.0.0.1" : configuration.host)
        guard let apiURL = URL(string: "http://\(advertised):\(api.port)"),
              let storageURL = URL(string: "http://\(advertised):\(storage.port)") else {
            api.stop()
            storage.stop()
            store.removeWorkDirectory()
            throw RegistryStartError("\(advertised) is not a usable host name for URLs; pass a host name or IP address to --advertise-host")
        }
        state.setOrigins(api: apiURL, storage: storageURL)
        api.start()
        storage.start()
        return DevelopmentRegistry(state: state, api: api, storage: storage, apiBaseURL: apiURL, storageBaseURL: storageURL)
    }

    /// Loads `catalogDirectory/catalog.json` and starts a registry serving it.
    /// - Throws: `CatalogFileError` for a bad catalog, and what `start(catalog:configuration:)` throws.
    public static func start(catalogDirectory: URL, configuration: RegistryConfiguration = .init()) throws -> DevelopmentRegistry {
        try start(catalog: RegistryCatalog.load(directory: catalogDirectory), configuration: configuration)
    }

    /// Stops both origins: closes the listeners and every connection, waits for their threads,
    /// and deletes the work directory. Idempotent; also called on deinit.
    public func stop() {
        apiServer.stop()
        storageServer.stop()
        state.store.removeWorkDirectory()
    }

    // MARK: Artifacts

    /// The bytes of `modelId` at `version` (default: the current version), or nil.
    public func artifactBytes(modelId: String, version: String? = nil) -> Data? {
        artifactURL(modelId: modelId, version: version).flatMap { FileManager.default.contents(atPath: $0.path) }
    }

    /// The file holding `modelId` at `version` (default: the current version), or nil.
    public func artifactURL(modelId: String, version: String? = nil) -> URL? {
        guard let version = version ?? state.model(modelId, for: nil)?.model.version,
              let blob = state.blob(modelId, version) else { return nil }
        return URL(fileURLWithPath: blob.path)
    }

    /// The SHA-256 (64 lowercase hex characters) of the current version of `modelId`, or ""
    /// when there is no such model.
    public func sha256(modelId: String) -> String {
        state.model(modelId, for: nil)?.artifact.sha256 ?? ""
    }

    /// The size in bytes of the current version of `modelId`, or nil.
    public func size(modelId: String) -> Int? {
        state.model(modelId, for: nil)?.artifact.size
    }

    /// The current version of `modelId`, or nil.
    public func version(modelId: String) -> String? {
        state.model(modelId, for: nil)?.model.version
    }

    /// The versions the catalog lists as ready to upload.
    public var pendingVersions: [RegistryPendingVersion] { state.pending }

    /// Publishes `version` of `modelId` with `artifact`: the same effect as a successful
    /// upload (the previous version stays downloadable through URLs already issued).
    /// - Throws: when the artifact cannot be read or written.
    public func publish(modelId: String, version: String, artifact: RegistryArtifact) throws {
        guard RegistryModel.isValidModelId(modelId) else {
            throw RegistryStartError("model id \"\(modelId)\" does not match CONTRACT §2")
        }
        state.publish(modelId: modelId, version: version, artifact: try state.store.materialize(artifact), source: artifact)
    }

    /// A freshly signed download URL for the current version of `modelId`, valid for `ttl`
    /// seconds (default: the configured `urlTTL`).
    public func signedDownloadURL(modelId: String, ttl: Int? = nil) -> URL? {
        guard let version = version(modelId: modelId) else { return nil }
        let path = StorageOrigin.blobPath(modelId: modelId, version: version)
        let expires = Int(Date().timeIntervalSince1970) + (ttl ?? configuration.urlTTL)
        return URL(string: storageBaseURL.absoluteString + path + "?" + state.signer.query(method: "GET", path: path, expires: expires))
    }

    // MARK: Sessions

    /// Issues a session token, as `POST /api/session` would.
    public func issueSession(principalId: String, ttlSec: Int = 3600) -> String {
        state.issueSession(principalId: principalId, ttl: ttlSec).token
    }

    /// Makes every issued session token expired (`invalid_session` from then on).
    public func expireSessions() { state.expireSessions() }

    // MARK: Faults

    /// Arms `fault` for requests to `endpoint` about `modelId` (nil: every model), replacing
    /// any fault armed for the same endpoint and model.
    public func setFault(_ fault: RegistryFault, modelId: String? = nil, endpoint: RegistryEndpoint) {
        state.faults.set(RegistryFaultRule(endpoint: endpoint, modelId: modelId, fault: fault))
    }

    /// Disarms every fault.
    public func clearFaults() { state.faults.clear() }

    /// The armed faults, with the counts that remain.
    public var faults: [RegistryFaultRule] { state.faults.all }

    // MARK: Observation

    /// Every request received so far (admin requests excluded), oldest first.
    public func requestLog() -> [LoggedRequest] { state.log.entries }

    /// Forgets the request log.
    public func clearRequestLog() { state.log.clear() }

    /// Storage downloads in progress.
    public var openDownloads: Int { state.gauge.open }

    /// The most storage downloads seen in progress at once.
    public var maxConcurrentDownloads: Int { state.gauge.maximum }

    /// Artifact body bytes the storage origin has really sent (each response counted when it
    /// ends, so a client that hung up is charged only what went out before), for tests that
    /// check where bytes came from and how many an interruption cost. Read it once
    /// `openDownloads` is 0.
    public var storageBytesServed: Int64 { state.gauge.bytesServed }

    /// Resets `maxConcurrentDownloads` to the current `openDownloads`.
    public func resetDownloadStatistics() { state.gauge.resetMaximum() }
}

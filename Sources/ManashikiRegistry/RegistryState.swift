import Foundation
import ManashikiCore

/// An issued session token.
struct SessionGrant: Sendable {
    let principalId: String
    var expiresAt: Date
}

/// An upload announced with `POST /api/uploads/model`, waiting for its `PUT`.
struct PendingUpload: Sendable {
    let uploadId: String
    let modelId: String
    let version: String
    let size: Int
    let sha256: String
    let visibility: String?
    let format: JSONValue?
    let organization: String?
    var completed = false
}

/// The registry's mutable state, shared by both origins' connection threads.
final class RegistryState: @unchecked Sendable {
    private struct Contents {
        var keys: [String: RegistryKey] = [:]
        var order: [String] = []
        var models: [String: ServedModel] = [:]
        var blobs: [String: StoredArtifact] = [:]
        var sessions: [String: SessionGrant] = [:]
        var uploads: [String: PendingUpload] = [:]
        var pending: [RegistryPendingVersion] = []
    }

    let configuration: RegistryConfiguration
    let store: ArtifactStore
    let signer: URLSigner
    let faults = FaultTable()
    let log: RequestLog
    let gauge = DownloadGauge()
    /// Signed URLs carry the epoch they were issued in; those of an earlier epoch are
    /// expired (the `expireMidBody` fault starts a new one).
    let urlEpoch = Locked(0)
    private let data = Locked(Contents())
    private let origins = Locked((api: URL(string: "http://127.0.0.1")!, storage: URL(string: "http://127.0.0.1")!))

    /// The TUF repository (`serve --tuf DIR`), nil without one.
    let tuf: RegistryTUF?

    init(configuration: RegistryConfiguration, store: ArtifactStore, tuf: RegistryTUF? = nil) {
        self.configuration = configuration
        self.store = store
        self.tuf = tuf
        self.signer = URLSigner(secret: configuration.signingSecret ?? Hex.random(bytes: 32))
        self.log = RequestLog(limit: configuration.requestLogLimit)
    }

    // MARK: Origins

    /// Sets the advertised base URLs once the servers are bound.
    func setOrigins(api: URL, storage: URL) { origins.withLock { $0 = (api, storage) } }
    /// The API origin's base URL.
    var apiBase: URL { origins.withLock { $0.api } }
    /// The storage origin's base URL.
    var storageBase: URL { origins.withLock { $0.storage } }

    // MARK: Catalog

    /// Loads the catalog, materialising every artifact.
    func load(_ catalog: RegistryCatalog) throws {
        for key in catalog.keys { data.withLock { $0.keys[key.secret] = key } }
        for model in catalog.models {
            guard RegistryModel.isValidModelId(model.modelId) else {
                throw RegistryStartError("model id \"\(model.modelId)\" does not match CONTRACT §2; use lowercase letters, digits, '.', '_' and '-'")
            }
            try install(model, artifact: store.materialize(model.artifact))
        }
        data.withLock { $0.pending = catalog.pending }
        for rule in catalog.faults { faults.set(rule) }
    }

    /// Adds or replaces a model and keeps its bytes reachable by version.
    func install(_ model: RegistryModel, artifact: StoredArtifact) {
        data.withLock { d in
            if d.models[model.modelId] == nil { d.order.append(model.modelId) }
            d.models[model.modelId] = ServedModel(model: model, artifact: artifact)
            d.blobs[Self.blobKey(model.modelId, model.version)] = artifact
        }
    }

    /// Publishes a new version of `modelId` (or a new model), as a completed upload does.
    func publish(modelId: String, version: String, artifact: StoredArtifact, source: RegistryArtifact,
                 visibility: String? = nil, format: JSONValue? = nil, organization: String? = nil) {
        let existing = data.withLock { $0.models[modelId]?.model }
        var model = existing ?? RegistryModel(modelId: modelId, version: version, artifact: source, organization: organization)
        if let existing, existing.version != version {
            var lineage: [String: JSONValue] = [:]
            if case .object(let o)? = existing.lineage { lineage = o }
            lineage["parentVersion"] = .string(existing.version)
            model.lineage = .object(lineage)
        }
        model.version = version
        model.artifact = source
        if let visibility { model.visibility = visibility }
        if let format { model.format = format }
        install(model, artifact: artifact)
    }

    /// The key with this secret.
    func key(_ secret: String) -> RegistryKey? { data.withLock { $0.keys[secret] } }

    /// Whether `key` may see `model`.
    static func visible(_ model: RegistryModel, to key: RegistryKey?) -> Bool {
        guard model.visibility == "private", let owner = model.organization, let org = key?.organization else { return true }
        return owner == org
    }

    /// The models `key` can see, in catalog order.
    func models(for key: RegistryKey?) -> [ServedModel] {
        data.withLock { d in d.order.compactMap { d.models[$0] }.filter { Self.visible($0.model, to: key) } }
    }

    /// One model, if `key` can see it.
    func model(_ id: String, for key: RegistryKey?) -> ServedModel? {
        data.withLock { d in d.models[id].flatMap { Self.visible($0.model, to: key) ? $0 : nil } }
    }

    /// The bytes of `modelId` at `version`.
    func blob(_ modelId: String, _ version: String) -> StoredArtifact? {
        data.withLock { $0.blobs[Self.blobKey(modelId, version)] }
    }

    /// Every version served (current or earlier), for the TUF repository's targets.
    func servedArtifacts() -> [(modelId: String, version: String, size: Int, sha256: String)] {
        data.withLock { d in
            d.blobs.compactMap { key, artifact in
                let parts = key.split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else { return nil }
                return (String(parts[0]), String(parts[1]), artifact.size, artifact.sha256)
            }
        }
    }

    /// The versions waiting to be uploaded.
    var pending: [RegistryPendingVersion] { data.withLock { $0.pending } }

    private static func blobKey(_ id: String, _ version: String) -> String { id + "\u{0}" + version }

    // MARK: Sessions

    /// Issues a token for `principalId` valid for `ttl` seconds.
    func issueSession(principalId: String, ttl: Int) -> (token: String, expiresAt: Date) {
        let token = "mks_" + Hex.random(bytes: 24)
        let expires = Date(timeIntervalSinceNow: TimeInterval(ttl))
        data.withLock { $0.sessions[token] = SessionGrant(principalId: principalId, expiresAt: expires) }
        return (token, expires)
    }

    /// Whether `token` is a live session.
    func sessionIsValid(_ token: String) -> Bool {
        data.withLock { $0.sessions[token].map { $0.expiresAt > Date() } ?? false }
    }

    /// Makes every issued session expired. Returns how many there were.
    @discardableResult
    func expireSessions() -> Int {
        data.withLock { d in
            let past = Date(timeIntervalSinceNow: -1)
            for token in d.sessions.keys { d.sessions[token]?.expiresAt = past }
            return d.sessions.count
        }
    }

    // MARK: Uploads

    /// Records an announced upload.
    func addUpload(_ upload: PendingUpload) { data.withLock { $0.uploads[upload.uploadId] = upload } }

    /// The announced upload with this id.
    func upload(_ id: String) -> PendingUpload? { data.withLock { $0.uploads[id] } }

    /// Marks an upload done.
    func completeUpload(_ id: String) { data.withLock { $0.uploads[id]?.completed = true } }

    /// Whether `version` of `modelId` is already served.
    func hasVersion(_ modelId: String, _ version: String) -> Bool { blob(modelId, version) != nil }
}

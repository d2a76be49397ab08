import Foundation
import Manashiki
@testable import ManashikiSync
import ManashikiCore

/// An in-memory registry that installs artifacts into a real directory, like the SDK does, and
/// records every call.
final class FakeRegistry: RegistryClient, Sendable {
    struct Model: Sendable {
        var record: ModelRecord
        var data: Data
    }

    private struct State {
        var models: [String: Model] = [:]
        var calls: [String] = []
        var listFailures: [APIError] = []
        var downloadFailures: [String: [APIError]] = [:]
        var sessionTokens: [String: String] = [:]
        var inFlight: [String] = []
        var maxInFlight = 0
        var overlapping: [String] = []
        var limiters: [BandwidthLimiter?] = []
    }

    let storageDirectory: URL
    let canIssueSessions: Bool
    private let state = Locked(State())

    init(storageDirectory: URL, canIssueSessions: Bool = false) {
        self.storageDirectory = storageDirectory
        self.canIssueSessions = canIssueSessions
    }

    /// Publishes (or republishes) a model's current version.
    @discardableResult
    func publish(_ id: String, _ version: String, bytes: String? = nil, visibility: ModelVisibility = .public,
                 platforms: [Platform] = Platform.known, status: LifecycleStatus = .production,
                 minOs: String? = nil, minRamMb: Int? = nil, minDiskMb: Int? = nil) -> ModelEntry {
        let data = Data((bytes ?? "\(id) \(version) weights").utf8)
        let record = ModelRecord(
            modelId: id, version: version, size: Int64(data.count), sha256: SHA256Hasher.hash(data).hex,
            compatibility: ModelCompatibility(platforms: platforms, minOs: minOs, minRamMb: minRamMb, minDiskMb: minDiskMb),
            lifecycle: ModelLifecycle(status: status), visibility: visibility)
        state.withLock { $0.models[id] = Model(record: record, data: data) }
        return record.entry
    }

    func unpublish(_ id: String) { state.withLock { $0.models[id] = nil } }

    /// Makes the next downloads of `id` fail with these errors, one per attempt.
    func failDownloads(of id: String, with errors: [APIError]) { state.withLock { $0.downloadFailures[id, default: []] += errors } }
    func failListing(with errors: [APIError]) { state.withLock { $0.listFailures += errors } }

    var calls: [String] { state.current.calls }
    func calls(_ prefix: String) -> [String] { calls.filter { $0.hasPrefix(prefix) } }
    /// The session token each private download carried.
    var sessionTokens: [String: String] { state.current.sessionTokens }
    func entry(_ id: String) -> ModelEntry? { state.current.models[id]?.record.entry }
    /// The rate limiter each download was given, in call order.
    var limiters: [BandwidthLimiter?] { state.current.limiters }
    /// The most downloads that were in progress at once.
    var maxInFlight: Int { state.current.maxInFlight }
    /// Models that had two downloads in progress at once (must stay empty).
    var overlapping: [String] { state.current.overlapping }

    func listModels() async throws -> [ModelEntry] {
        try state.withLock { s in
            s.calls.append("list")
            if !s.listFailures.isEmpty { throw s.listFailures.removeFirst() }
            return s.models.values.map(\.record.entry).sorted { $0.modelId < $1.modelId }
        }
    }

    func getModel(_ modelId: String) async throws -> ModelRecord {
        try state.withLock { s in
            s.calls.append("get \(modelId)")
            guard let m = s.models[modelId] else { throw APIError.modelNotFound(modelId) }
            return m.record
        }
    }

    func createSession(principalId: String, ttlSec: Int) async throws -> ModelSession {
        state.withLock { $0.calls.append("session \(principalId)") }
        guard canIssueSessions else { throw APIError.forbiddenScope }
        return ModelSession(token: "mks_minted_for_\(principalId)", principalId: principalId, expiresAt: Date().addingTimeInterval(Double(ttlSec)))
    }

    func download(_ modelId: String, session: String?, expecting: ExpectedArtifact, options: DownloadOptions,
                  progress: (@Sendable (Int64, Int64?) -> Void)?) async throws -> DownloadedModel {
        let model: Model = try state.withLock { s in
            s.calls.append("download \(modelId)")
            s.limiters.append(options.rateLimiter)
            if var queue = s.downloadFailures[modelId], !queue.isEmpty {
                let error = queue.removeFirst()
                s.downloadFailures[modelId] = queue
                throw error
            }
            guard let m = s.models[modelId] else { throw APIError.modelNotFound(modelId) }
            if m.record.visibility != .public {
                guard let session else { throw APIError.sessionRequired }
                s.sessionTokens[modelId] = session
            }
            return m
        }
        state.withLock { s in
            if s.inFlight.contains(modelId) { s.overlapping.append(modelId) }
            s.inFlight.append(modelId)
            s.maxInFlight = max(s.maxInFlight, s.inFlight.count)
        }
        defer { state.withLock { s in s.inFlight.remove(at: s.inFlight.firstIndex(of: modelId)!) } }
        // Let other downloads start, as a real transfer would.
        for _ in 0..<20 { await Task.yield() }
        if let sha = expecting.sha256, sha != model.record.sha256 {
            throw APIError.registryDisagrees("the registry serves a different artifact than expected")
        }
        // Like the SDK: write a temporary file, then rename over <id>.bin. Not in
        // `.manashiki/partial`: the SDK removes partial files nobody holds a flock on whenever it
        // opens the storage directory (as a concurrent sync does), and this fake takes no flock.
        let partialDir = storageDirectory.appendingPathComponent(".manashiki", isDirectory: true)
        try FileManager.default.createDirectory(at: partialDir, withIntermediateDirectories: true)
        let partial = partialDir.appendingPathComponent("fake-download.\(modelId).\(UUID().uuidString.prefix(6))")
        try model.data.write(to: partial)
        progress?(Int64(model.data.count), Int64(model.data.count))
        let target = storageDirectory.appendingPathComponent("\(modelId).bin")
        _ = try? FileManager.default.removeItem(at: target)
        try FileManager.default.moveItem(at: partial, to: target)
        return DownloadedModel(modelId: modelId, localURL: target, sha256: model.record.sha256, size: Int64(model.data.count),
                               version: model.record.version, verified: true)
    }
}

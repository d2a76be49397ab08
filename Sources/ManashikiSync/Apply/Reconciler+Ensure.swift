import Foundation
import Manashiki

extension Reconciler {
    /// Installs the models `modelIds` names if they are missing (an on-demand model, an optional
    /// one left out, a required one not synced yet), evicting least recently used optional and
    /// on-demand models when `store.budget` needs the room, and records a use of each. Nothing
    /// else is downloaded, updated or pruned.
    ///
    /// ```swift
    /// let report = try await reconciler.ensure(["whisper-large"])
    /// guard report.outcome == .changed || report.outcome == .inSync else { throw … }
    /// let lease = try reconciler.lease("whisper-large")
    /// ```
    /// - Throws: `EnsureError` when an id is not in the manifest (nothing is run).
    public func ensure(_ modelIds: [String], onEvent: (@Sendable (SyncEvent) -> Void)? = nil) async throws(EnsureError) -> SyncReport {
        try Self.check(modelIds, in: manifest)
        var copy = options
        copy.ensuring = modelIds
        return await Reconciler(manifest: manifest, registry: registry, options: copy).run(onEvent: onEvent)
    }

    /// Takes the lease of an installed model of this reconciler's store (`ModelLease.acquire`).
    /// - Throws: `ModelLeaseError`.
    public func lease(_ modelId: String) throws -> ModelLease {
        try ModelLease.acquire(modelId, storeDirectory: manifest.storeDirectory)
    }

    /// Refuses ids the manifest does not list.
    package static func check(_ modelIds: [String], in manifest: Manifest) throws(EnsureError) {
        let listed = manifest.models.map(\.id)
        let unknown = modelIds.filter { !listed.contains($0) }
        guard unknown.isEmpty, !modelIds.isEmpty else {
            throw EnsureError(unknown: unknown, suggestions: Dictionary(uniqueKeysWithValues: unknown.compactMap { id in
                NearestKey.suggestion(for: id, among: listed).map { (id, $0) }
            }), listed: listed)
        }
    }
}

/// `ensure` of ids the manifest does not list (or of none).
public struct EnsureError: Error, Sendable, Hashable, LocalizedError, CustomStringConvertible {
    /// The ids not in the manifest.
    public var unknown: [String]
    /// The nearest listed id of each unknown one, when close enough to be a typo.
    public var suggestions: [String: String]
    /// The ids the manifest lists.
    public var listed: [String]

    /// What is wrong and what to do.
    public var description: String {
        guard !unknown.isEmpty else { return "ensure needs at least one model id of the manifest" }
        let names = unknown.map { "\"\($0)\"" }.joined(separator: ", ")
        let near = unknown.compactMap { id in suggestions[id].map { "\"\($0)\"" } }
        let hint = near.isEmpty ? "" : " (did you mean \(near.joined(separator: ", "))?)"
        let noun = unknown.count == 1 ? "is" : "are"
        return "\(names) \(noun) not in the manifest's models\(hint); add an entry (\"class\": \"onDemand\" for a model installed only when asked for), or use an id the manifest lists"
    }

    /// Same as `description`.
    public var errorDescription: String? { description }
}

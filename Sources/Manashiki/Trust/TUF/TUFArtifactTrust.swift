import Foundation

/// `trust.tuf` as an `ArtifactTrust`: a model version may be installed, replaced or kept only
/// when the signed repository lists `models/<modelId>/<version>.bin` with exactly the
/// candidate's SHA-256 and length; a version older than the highest one installed with trust
/// only when the manifest pins it exactly; and never after the metadata expired.
///
/// One refresh per instance (an update cycle, its reference time fixed); the refresh's outcome
/// (summary or refusal) is what every candidate of the run is judged by.
public actor TUFArtifactTrust: ArtifactTrust {
    /// The target path of a model version: `models/<modelId>/<version>.bin`.
    public static func targetPath(modelId: String, version: String) -> String { "models/\(modelId)/\(version).bin" }

    let updater: TUFUpdater
    let highWater: any TrustHighWaterMarks
    let isOlder: @Sendable (String, String) -> Bool

    /// A trust over `updater`.
    /// - Parameters:
    ///   - highWater: where the highest version installed with trust is kept, per model.
    ///   - isOlder: whether the first version is older than the second (the sync agent's
    ///     `ModelVersion` order; by default dotted numbers, then text).
    public init(updater: TUFUpdater, highWater: any TrustHighWaterMarks,
                isOlder: @escaping @Sendable (String, String) -> Bool = TUFArtifactTrust.dottedOrder) {
        self.updater = updater
        self.highWater = highWater
        self.isOlder = isOlder
    }

    /// The refreshed metadata's summary (nil until a candidate was evaluated or `refresh` ran).
    public func refresh() async throws(TUFError) -> TUFSummary { try await updater.refresh() }

    public func evaluate(_ candidate: ArtifactCandidate) async throws(TrustRefusal) -> TrustEvidence {
        let path = Self.targetPath(modelId: candidate.modelId, version: candidate.version)
        let target: TUFTargetFile
        let summary: TUFSummary
        do {
            summary = try await updater.refresh()
            target = try await updater.target(path)
        } catch {
            throw refusal(error, candidate)
        }
        let signed = "sha256 \(target.sha256 ?? "none"), \(target.length) bytes"
        guard target.sha256 == candidate.sha256, target.length == candidate.size else {
            throw TrustRefusal(mechanism: "tuf", modelId: candidate.modelId, version: candidate.version,
                               reason: .mismatch(signed: signed, offered: "sha256 \(candidate.sha256), \(candidate.size) bytes (\(candidate.source))"),
                               role: "targets")
        }
        if candidate.purpose != .keep, !candidate.pinnedExactly, let highest = highWater.highest(candidate.modelId),
           isOlder(candidate.version, highest) {
            throw TrustRefusal(mechanism: "tuf", modelId: candidate.modelId, version: candidate.version,
                               reason: .rollback(highest: highest, offered: candidate.version))
        }
        return TrustEvidence(mechanism: "tuf", detail: "the signed repository lists \(path) with \(signed)",
                             facts: ["target": path, "root": String(summary.rootVersion), "timestamp": String(summary.timestampVersion),
                                     "snapshot": String(summary.snapshotVersion), "targets": String(summary.targetsVersion)])
    }

    public func didInstall(_ candidate: ArtifactCandidate, evidence: TrustEvidence) async throws {
        try Self.raiseHighWater(candidate, in: highWater, isOlder: isOlder)
    }

    /// Records `candidate`'s version as its model's mark in `marks` when none is recorded or the
    /// recorded one is older (the one rule of `TUFArtifactTrust` and `TUFTrust`).
    static func raiseHighWater(_ candidate: ArtifactCandidate, in marks: any TrustHighWaterMarks,
                               isOlder: (String, String) -> Bool) throws {
        if let highest = marks.highest(candidate.modelId), !isOlder(highest, candidate.version) { return }
        try marks.record(candidate.version, for: candidate.modelId)
    }

    private func refusal(_ error: TUFError, _ candidate: ArtifactCandidate) -> TrustRefusal {
        let reason: TrustRefusal.Reason = switch error.reason {
        case .targetNotFound: .notSigned
        case .expired(let expires, _): .expired(role: error.role, at: expires)
        case .unavailable(let why): .unavailable(why)
        default: .metadata(error.description)
        }
        return TrustRefusal(mechanism: "tuf", modelId: candidate.modelId, version: candidate.version, reason: reason,
                            role: error.reason == .targetNotFound ? "targets" : error.role, tuf: error)
    }

    /// Dotted numbers compared as numbers (`1.10` after `1.9`), then as text.
    public static let dottedOrder: @Sendable (String, String) -> Bool = { a, b in
        let x = a.split(separator: ".").map { Int($0) }, y = b.split(separator: ".").map { Int($0) }
        if x.allSatisfy({ $0 != nil }), y.allSatisfy({ $0 != nil }) {
            let xs = x.compactMap { $0 }, ys = y.compactMap { $0 }
            for i in 0..<max(xs.count, ys.count) {
                let l = i < xs.count ? xs[i] : 0, r = i < ys.count ? ys[i] : 0
                if l != r { return l < r }
            }
            return false
        }
        return a < b
    }
}

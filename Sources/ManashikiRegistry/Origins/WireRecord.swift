import Foundation

/// Builds the wire JSON of CONTRACT §3 by hand from a `ServedModel`.
enum WireRecord {
    /// An entry of `GET /api/models`: `modelId`, `version`, `size`, `sha256`.
    static func summary(_ e: ServedModel) -> [String: Any] {
        ["modelId": e.model.modelId, "version": e.model.version, "size": e.artifact.size, "sha256": e.artifact.sha256]
    }

    /// The full record of `GET /api/models/{modelId}`.
    static func full(_ e: ServedModel) -> [String: Any] {
        let m = e.model
        var compatibility: [String: Any] = ["platforms": m.platforms]
        if let v = m.minOS { compatibility["min_os"] = v }
        if let v = m.minRAMMB { compatibility["min_ram_mb"] = v }
        if let v = m.minDiskMB { compatibility["min_disk_mb"] = v }
        var record: [String: Any] = [:]
        for (key, value) in m.extraFields { record[key] = value.foundationValue }
        record["modelId"] = m.modelId
        record["version"] = m.version
        record["size"] = e.artifact.size
        record["sha256"] = e.artifact.sha256
        record["compatibility"] = compatibility
        record["lifecycle"] = ["status": m.status, "sunsetAt": m.sunsetAt.map { $0 as Any } ?? NSNull()] as [String: Any]
        record["visibility"] = m.visibility
        if let v = m.card { record["card"] = v.foundationValue }
        if let v = m.lineage { record["lineage"] = v.foundationValue }
        if let v = m.format { record["format"] = v.foundationValue }
        if let v = m.metrics { record["metrics"] = v.foundationValue }
        return record
    }
}

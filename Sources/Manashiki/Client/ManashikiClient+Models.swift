import Foundation
import ManashikiCore

extension ManashikiClient {
    /// Lists every model the key's organisation can see (`GET /api/models`).
    ///
    /// There are no filter parameters yet: filter the result yourself, for example by
    /// `getModel(_:)`'s `compatibility.platforms`.
    ///
    /// ```swift
    /// let entries = try await client.listModels()
    /// for entry in entries {
    ///     print(entry.modelId, entry.version, entry.size, entry.sha256)
    /// }
    /// ```
    /// - Throws: `APIError` (CONTRACT §4), or `.invalidResponse` naming the bad entry when the
    ///   catalog holds an invalid id, size or digest (`listCatalog()` keeps the valid entries).
    public func listModels() async throws -> [ModelEntry] {
        let catalog = try await listCatalog()
        if let bad = catalog.rejected.first { throw APIError.invalidResponse("GET /api/models: \(bad)") }
        return catalog.entries
    }

    /// Lists the catalog like `listModels()`, but an invalid entry (bad id, negative size,
    /// malformed digest, wrong types) is returned in `rejected` instead of failing the whole
    /// listing, so the other models stay usable.
    ///
    /// ```swift
    /// let catalog = try await client.listCatalog()
    /// catalog.rejected.forEach { print("ignored:", $0) }
    /// ```
    /// - Throws: `APIError` (CONTRACT §4); `.invalidResponse` when the answer is not a catalog at all.
    public func listCatalog() async throws -> CatalogListing {
        let response = try await performAPI(path: ["api", "models"])
        let body = try decode(ModelCatalogResponse.self, from: response, what: "GET /api/models")
        var listing = CatalogListing(entries: [])
        for (i, element) in body.models.enumerated() {
            let id = element.modelId.flatMap { ModelID.isValid($0) ? $0 : nil }
            guard let entry = element.entry else {
                listing.rejected.append(.init(index: i, modelId: id, problem: element.problem ?? "is not a valid entry"))
                continue
            }
            if let problem = Self.problem(modelId: entry.modelId, version: entry.version, size: entry.size, sha256: entry.sha256) {
                listing.rejected.append(.init(index: i, modelId: id, problem: problem))
            } else {
                listing.entries.append(entry)
            }
        }
        return listing
    }

    /// Fetches a model's full registry record (`GET /api/models/{modelId}`).
    ///
    /// ```swift
    /// let record = try await client.getModel("whisper-medical-ja-fp16")
    /// print(record.lifecycle.status, record.compatibility.minOs ?? "-")
    /// ```
    /// - Throws: `APIError.invalidModelId` before sending anything for a malformed id;
    ///   `.modelNotFound`, and the other `APIError` cases of CONTRACT §4.
    public func getModel(_ modelId: String) async throws -> ModelRecord {
        try ModelID.validate(modelId)
        let response = try await performAPI(path: ["api", "models", modelId], modelId: modelId)
        let record = try decode(ModelRecord.self, from: response, what: "GET /api/models/\(modelId)")
        guard record.modelId == modelId else {
            throw APIError.invalidResponse("GET /api/models/\(modelId) answered a record for another model")
        }
        if let problem = Self.problem(modelId: record.modelId, version: record.version, size: record.size, sha256: record.sha256) {
            throw APIError.invalidResponse("GET /api/models/\(modelId): \(problem)")
        }
        return record
    }

    /// What is wrong with an entry's fields, if anything.
    static func problem(modelId: String, version: String, size: Int64, sha256: String) -> String? {
        if !ModelID.isValid(modelId) { return "has an invalid modelId \(APIError.quoted(modelId))" }
        if !isUsableVersion(version) { return "has a version that is empty, over 128 characters, or contains control characters" }
        if let problem = ModelEntry.sizeProblem(size) { return problem }
        if !Hex.isSHA256(sha256) { return "has a sha256 that is not 64 lowercase hex characters" }
        return nil
    }

    /// Versions end up in logs, terminals and file metadata: 1 to 128 characters, none of them
    /// control or invisible formatting characters.
    static func isUsableVersion(_ version: String) -> Bool {
        let scalars = version.unicodeScalars
        return !scalars.isEmpty && version.count <= 128 && !scalars.contains {
            $0.value < 0x20 || $0.value == 0x7F || (0x80...0x9F).contains($0.value) || $0.properties.generalCategory == .format
        }
    }
}

import Foundation
import ManashikiCore

extension ManashikiClient {
    /// Announces a new artifact and returns where to send it (`POST /api/uploads/model`).
    ///
    /// Then send the bytes with `uploadArtifact(_:from:)`; the registry checks size and digest.
    /// - Throws: `APIError.forbiddenScope` without sending anything for a client-tier key;
    ///   `.invalidModelId` or `.badRequest` without sending for a malformed request.
    public func createModelUpload(_ request: ModelUploadRequest) async throws -> ModelUpload {
        guard apiKey.isServerKey else { throw APIError.forbiddenScope }
        try ModelID.validate(request.modelId)
        guard request.size >= 0 else { throw APIError.badRequest("size must not be negative") }
        guard Hex.isSHA256(request.sha256) else { throw APIError.badRequest("sha256 must be 64 lowercase hex characters") }
        guard !request.version.isEmpty else { throw APIError.badRequest("version must not be empty") }
        let body = try JSONEncoder().encode(request)
        let response = try await performAPI(method: "POST", path: ["api", "uploads", "model"], body: body, modelId: request.modelId)
        let upload = try decode(ModelUpload.self, from: response, what: "POST /api/uploads/model")
        if let reason = URLPolicy.refusal(for: upload.uploadUrl) {
            throw APIError.refusedURL("the upload URL is not allowed (\(reason))")
        }
        return upload
    }

    /// Sends an artifact's bytes to the signed URL of `upload` (no API key is sent there).
    ///
    /// The file is memory-mapped, not read into memory.
    /// - Throws: `APIError.badRequest` when the storage host rejects the bytes (size or digest
    ///   differ from the announced ones), `.fileSystem` when the file cannot be read.
    public func uploadArtifact(_ upload: ModelUpload, from fileURL: URL) async throws {
        if let reason = URLPolicy.refusal(for: upload.uploadUrl) {
            throw APIError.refusedURL("the upload URL is not allowed (\(reason))")
        }
        let data: Data
        do {
            data = try Data(contentsOf: fileURL, options: .alwaysMapped)
        } catch {
            throw APIError.fileSystem(operation: "read", path: fileURL.path, code: POSIX.errnoCode(of: error))
        }
        let request = HTTPRequest(
            method: upload.method, url: upload.uploadUrl,
            headers: ["Content-Type": "application/octet-stream", "User-Agent": Self.userAgent, "Content-Length": String(data.count)],
            body: data, idleTimeout: 120)
        let response = try await transport.send(request)
        try check(response, modelId: nil, bearer: nil)
    }
}

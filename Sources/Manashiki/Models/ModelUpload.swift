import Foundation

/// What to publish with `createModelUpload(_:)` (`POST /api/uploads/model`).
///
/// ```swift
/// let upload = try await client.createModelUpload(ModelUploadRequest(
///     modelId: "whisper-medical-ja-fp16", version: "1.5.0",
///     size: 1_533_018_112, sha256: digest, visibility: .private, format: ModelFormat(type: "gguf")))
/// try await client.uploadArtifact(upload, from: fileURL)
/// ```
public struct ModelUploadRequest: Codable, Sendable, Hashable {
    /// The model id.
    public var modelId: String
    /// The new version.
    public var version: String
    /// The artifact's size in bytes.
    public var size: Int64
    /// The artifact's SHA-256, 64 lowercase hex characters.
    public var sha256: String
    /// Who may download it.
    public var visibility: ModelVisibility
    /// The artifact's format.
    public var format: ModelFormat?

    /// Creates an upload request.
    public init(modelId: String, version: String, size: Int64, sha256: String, visibility: ModelVisibility = .private, format: ModelFormat? = nil) {
        self.modelId = modelId
        self.version = version
        self.size = size
        self.sha256 = sha256
        self.visibility = visibility
        self.format = format
    }
}

/// Where to send an artifact (the answer to `POST /api/uploads/model`).
///
/// `uploadUrl` is a signed URL: it is not printed by `description`.
public struct ModelUpload: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The upload's id (`up_…`).
    public var uploadId: String
    /// The signed URL to send the bytes to. Secret until it expires.
    public var uploadUrl: URL
    /// The HTTP method to use (`PUT`).
    public var method: String
    /// How long `uploadUrl` stays valid, in seconds.
    public var expiresIn: Int

    /// Creates an upload value.
    public init(uploadId: String, uploadUrl: URL, method: String, expiresIn: Int) {
        self.uploadId = uploadId
        self.uploadUrl = uploadUrl
        self.method = method
        self.expiresIn = expiresIn
    }

    /// Redacted: shows the upload id and the URL's host only.
    public var description: String {
        "ModelUpload(uploadId: \(uploadId), host: \(uploadUrl.host ?? "-"), method: \(method), expiresIn: \(expiresIn))"
    }
}

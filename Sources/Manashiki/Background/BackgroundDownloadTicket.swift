import Foundation
import ManashikiCore

/// What the SDK needs to verify a model file that the system downloaded for the app (a
/// background `URLSession`, Background Assets): which model, and the digest and size the
/// registry promised. It travels with the system's task (`taskDescription`, as JSON), so it
/// survives the app's suspension, termination and relaunch. It never holds a secret: no API
/// key, no session token (the signed URL lives in the system's task, not here).
///
/// ```swift
/// let (request, ticket) = try await client.backgroundDownloadRequest("whisper-medical-ja-fp16")
/// // … the system downloads `request`; later, in urlSession(_:downloadTask:didFinishDownloadingTo:):
/// let model = try client.installDownloadedFile(at: location, status: 200, for: ticket)
/// ```
public struct BackgroundDownloadTicket: Sendable, Hashable, Codable {
    /// The model the file is.
    public var modelId: String
    /// The registry's SHA-256 (64 lowercase hex). Required: a file fetched by the system is
    /// never installed unverified.
    public var sha256: String
    /// The registry's size in bytes, if it gave one.
    public var size: Int64?
    /// The catalog version, if known.
    public var version: String?
    /// When the signed URL of this ticket stops working (from the registry's `expiresIn`), if
    /// it said. Resume data the system handed over is only worth using before then: Apple's
    /// resume data cannot be pointed at a fresh URL.
    public var urlExpiresAt: Date?
    /// How many times the URL was resolved again after the storage host refused it (403/410)
    /// or answered 429/5xx; `BackgroundModelDownloads` stops at its `maxRetries`.
    public var retries: Int

    /// Creates a ticket.
    public init(modelId: String, sha256: String, size: Int64?, version: String?, urlExpiresAt: Date? = nil, retries: Int = 0) {
        self.modelId = modelId
        self.sha256 = sha256
        self.size = size
        self.version = version
        self.urlExpiresAt = urlExpiresAt
        self.retries = retries
    }

    private enum CodingKeys: String, CodingKey { case modelId, sha256, size, version, urlExpiresAt, retries }

    /// Decodes a ticket; `urlExpiresAt` and `retries` may be absent (tickets of tasks created
    /// before they existed).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        modelId = try c.decode(String.self, forKey: .modelId)
        sha256 = try c.decode(String.self, forKey: .sha256)
        size = try c.decodeIfPresent(Int64.self, forKey: .size)
        version = try c.decodeIfPresent(String.self, forKey: .version)
        urlExpiresAt = try c.decodeIfPresent(Date.self, forKey: .urlExpiresAt)
        retries = try c.decodeIfPresent(Int.self, forKey: .retries) ?? 0
    }

    /// Whether this ticket is for the same artifact as `other` (digest and size), whatever its
    /// URL, expiry or retry count.
    public func isSameArtifact(as other: BackgroundDownloadTicket) -> Bool {
        modelId == other.modelId && sha256 == other.sha256 && size == other.size
    }

    /// The ticket as the text stored in a task's `taskDescription`.
    public var taskDescription: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// The ticket stored in a task's `taskDescription`, or nil when it holds none (a task this
    /// SDK did not create).
    public init?(taskDescription: String?) {
        guard let text = taskDescription, let ticket = try? StrictJSONDecoder().decode(Self.self, from: Data(text.utf8)),
              ModelID.isValid(ticket.modelId), Hex.isSHA256(ticket.sha256), ticket.retries >= 0 else { return nil }
        self = ticket
    }
}
